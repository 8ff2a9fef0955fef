//! Media types: what a request accepts (`Accept`), negotiated as PostgREST negotiates them,
//! and EXPLAIN's options for `application/vnd.pgrst.plan`.

use crate::ApiError;
use crate::error::Pgrst;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaType {
    Json,
    /// `application/vnd.pgrst.array+json;nulls=stripped`: keys with null values left out.
    JsonStripped,
    SingularJson,
    /// `application/vnd.pgrst.object+json;nulls=stripped`.
    SingularJsonStripped,
    Csv,
    /// `application/geo+json` (PostGIS's `ST_AsGeoJSON` of each row).
    GeoJson,
    OpenApi,
    /// `application/vnd.pgrst.plan` (text) or `+json`: the request's EXPLAIN, when the
    /// database enables it (`pgrst.db_plan_enabled`).
    Plan(Explain),
}

/// What EXPLAIN a plan media type asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explain {
    pub json: bool,
    /// The media type whose query is explained (`for="…"`; JSON by default).
    pub target: &'static str,
    /// analyze, verbose, settings, buffers, wal: in this order, as PostgREST lists them.
    pub options: [bool; 5],
}

impl Explain {
    pub const OPTIONS: [&'static str; 5] = ["analyze", "verbose", "settings", "buffers", "wal"];

    /// The media type of the explained query.
    pub fn target_media(self) -> MediaType {
        match self.target {
            "application/vnd.pgrst.object+json" => MediaType::SingularJson,
            "text/csv" => MediaType::Csv,
            "application/geo+json" => MediaType::GeoJson,
            _ => MediaType::Json,
        }
    }

    /// EXPLAIN's option list: `FORMAT JSON, ANALYZE, …` (only fixed words).
    pub fn sql_options(self) -> String {
        let mut o = vec![
            if self.json {
                "FORMAT JSON"
            } else {
                "FORMAT TEXT"
            }
            .to_string(),
        ];
        o.extend(self.enabled().map(str::to_ascii_uppercase));
        o.join(", ")
    }

    /// The options asked for, in PostgREST's order.
    fn enabled(self) -> impl Iterator<Item = &'static str> {
        Self::OPTIONS
            .into_iter()
            .zip(self.options)
            .filter_map(|(name, on)| on.then_some(name))
    }

    fn content_type(self) -> String {
        let opts: Vec<&str> = self.enabled().collect();
        format!(
            "application/vnd.pgrst.plan+{}; for=\"{}\"{}; charset=utf-8",
            if self.json { "json" } else { "text" },
            self.target,
            if opts.is_empty() {
                String::new()
            } else {
                format!("; options={}", opts.join("|"))
            }
        )
    }
}

impl MediaType {
    pub fn content_type(self) -> String {
        let s = match self {
            MediaType::Json => "application/json; charset=utf-8",
            MediaType::JsonStripped => {
                "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
            }
            MediaType::SingularJson => "application/vnd.pgrst.object+json; charset=utf-8",
            MediaType::SingularJsonStripped => {
                "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8"
            }
            MediaType::Csv => "text/csv; charset=utf-8",
            MediaType::GeoJson => "application/geo+json; charset=utf-8",
            MediaType::OpenApi => "application/openapi+json; charset=utf-8",
            MediaType::Plan(e) => return e.content_type(),
        };
        s.to_string()
    }

    /// One object, not an array (`.single()`): anything but exactly one row is PGRST116.
    pub fn is_singular(self) -> bool {
        matches!(
            self,
            MediaType::SingularJson | MediaType::SingularJsonStripped
        )
    }

    pub fn strips_nulls(self) -> bool {
        matches!(
            self,
            MediaType::JsonStripped | MediaType::SingularJsonStripped
        )
    }
}

/// Picks the response media type from `Accept`, as PostgREST decodes media types (type and
/// subtype case-insensitive, `nulls=stripped` on the pgrst array and object types). Missing,
/// `*/*` and `application/*` mean JSON.
pub fn negotiate(accept: Option<&str>, allow_openapi: bool) -> Result<MediaType, ApiError> {
    let any = if allow_openapi {
        MediaType::OpenApi
    } else {
        MediaType::Json
    };
    let Some(accept) = accept.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(any);
    };
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let mt = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let params: Vec<(String, String)> = parts
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| {
                (
                    k.trim().to_ascii_lowercase(),
                    v.trim().trim_matches('"').to_string(),
                )
            })
            .collect();
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let stripped = param("nulls") == Some("stripped");
        let plan = |json: bool| {
            let target = match param("for").map(str::to_ascii_lowercase).as_deref() {
                None | Some("application/json") => Some("application/json"),
                Some("application/vnd.pgrst.object+json") => {
                    Some("application/vnd.pgrst.object+json")
                }
                Some("text/csv") => Some("text/csv"),
                Some("application/geo+json") => Some("application/geo+json"),
                Some(_) => None,
            }?;
            let asked: Vec<&str> = param("options").map_or(vec![], |o| o.split('|').collect());
            Some(MediaType::Plan(Explain {
                json,
                target,
                options: Explain::OPTIONS.map(|o| asked.contains(&o)),
            }))
        };
        let found = match mt.as_str() {
            "*/*" | "application/*" => Some(any),
            "application/json" => Some(MediaType::Json),
            "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" => {
                Some(if stripped {
                    MediaType::JsonStripped
                } else {
                    MediaType::Json
                })
            }
            "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" => {
                Some(if stripped {
                    MediaType::SingularJsonStripped
                } else {
                    MediaType::SingularJson
                })
            }
            "text/csv" => Some(MediaType::Csv),
            "application/geo+json" => Some(MediaType::GeoJson),
            "application/openapi+json" if allow_openapi => Some(MediaType::OpenApi),
            "application/vnd.pgrst.plan" | "application/vnd.pgrst.plan+text" => plan(false),
            "application/vnd.pgrst.plan+json" => plan(true),
            _ => None,
        };
        if let Some(m) = found {
            return Ok(m);
        }
    }
    Err(ApiError::pgrst(
        Pgrst::NotAcceptable,
        format!("None of these media types are available: {accept}"),
    ))
}
