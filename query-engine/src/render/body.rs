//! The response body PostgreSQL builds for the negotiated media type.

use crate::request::MediaType;

/// What the source rows are, for the body: table rows, one row of a function returning a
/// single composite, or a function's scalar(s) in `pgrst_scalar`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Rows,
    SingleRow,
    Scalar,
    SetOfScalar,
}

/// The body PostgreSQL builds for the media type, as PostgREST's aggregates do: JSON (nulls
/// stripped on request), one object, CSV (a header from the first row's keys, then each
/// row's text form without its parentheses, so quoting is PostgreSQL's) or GeoJSON.
pub(super) fn body_expr(media: MediaType, shape: Shape, head: bool) -> String {
    if head {
        return "NULL::text".into();
    }
    let strip = |e: String| {
        if media.strips_nulls() {
            format!("json_strip_nulls({e})")
        } else {
            e
        }
    };
    let value = match shape {
        Shape::Rows | Shape::SingleRow => "_postgrest_t",
        Shape::Scalar | Shape::SetOfScalar => "_postgrest_t.pgrst_scalar",
    };
    let one = || {
        format!(
            "coalesce({}, 'null')::text",
            strip(format!("json_agg({value})->0"))
        )
    };
    let all = || {
        format!(
            "coalesce({}, '[]')::text",
            strip(format!("json_agg({value})"))
        )
    };
    match media {
        MediaType::Csv => "(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k \
             FROM (SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) s) a) || '\n' || \
             coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), '\n'), '')"
            .into(),
        MediaType::GeoJson => "json_build_object('type', 'FeatureCollection', 'features', \
             coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))::text"
            .into(),
        m if m.is_singular() => one(),
        _ if matches!(shape, Shape::SingleRow | Shape::Scalar) => one(),
        _ => all(),
    }
}
