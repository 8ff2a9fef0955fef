//! What to tell a user whose migration asks for an extension this server lacks: which package
//! provides it, or how supagate builds it.

use crate::embedded::prefix;

/// Extensions a migration may ask for, and where they come from on Debian/Ubuntu.
fn extension_source(name: &str, major: &str) -> Option<String> {
    const CONTRIB: &[&str] = &[
        "amcheck",
        "autoinc",
        "bloom",
        "btree_gin",
        "btree_gist",
        "citext",
        "cube",
        "dblink",
        "dict_int",
        "dict_xsyn",
        "earthdistance",
        "file_fdw",
        "fuzzystrmatch",
        "hstore",
        "insert_username",
        "intagg",
        "intarray",
        "isn",
        "lo",
        "ltree",
        "moddatetime",
        "pageinspect",
        "pg_buffercache",
        "pg_freespacemap",
        "pg_prewarm",
        "pg_stat_statements",
        "pg_surgery",
        "pg_trgm",
        "pg_visibility",
        "pg_walinspect",
        "pgcrypto",
        "pgrowlocks",
        "pgstattuple",
        "postgres_fdw",
        "refint",
        "seg",
        "sslinfo",
        "tablefunc",
        "tcn",
        "tsm_system_rows",
        "tsm_system_time",
        "unaccent",
        "uuid-ossp",
        "xml2",
    ];
    const SUPABASE_ONLY: &[&str] = &[
        "pg_graphql",
        "pg_net",
        "pgsodium",
        "supabase_vault",
        "pg_jsonschema",
        "wrappers",
        "index_advisor",
        "pgjwt",
        "pg_tle",
        "pg_stat_monitor",
        "pgmq",
        "timescaledb",
        "pg_hashids",
        "pg_session_jwt",
    ];
    if let Some(pkg) = PROCEDURAL_LANGUAGES
        .iter()
        .find(|(l, _)| *l == name)
        .map(|(_, p)| p)
    {
        return Some(format!(
            "it is a procedural language packaged apart from the server; install it: \
             Debian/Ubuntu: sudo apt-get install -y {}",
            pkg.replace("{major}", major)
        ));
    }
    if CONTRIB.contains(&name) {
        return Some(format!(
            "it is one of PostgreSQL's contrib modules; install them (Debian/Ubuntu: part of \
             postgresql-{major}; Fedora/RHEL: postgresql{major}-contrib; Homebrew: included)"
        ));
    }
    let packaged = packaged_way(name, major);
    if prefix::pgrx_sources().contains(&name) {
        let built = if prefix::pgrx_extensions(major).contains(&name) {
            "this build of supagate has it, but the PostgreSQL server in use does not (a server \
             given by DATABASE_URL gets only what is installed into it)"
                .to_string()
        } else {
            format!(
                "this build of supagate has no build of it for PostgreSQL {major}: install \
                 postgresql-server-dev-{major} and libclang-dev (Debian/Ubuntu), run \
                 scripts/build-extensions, then build supagate again (scripts/start does all \
                 three)"
            )
        };
        let or = packaged
            .map(|p| format!("; or, into the server itself, {p}"))
            .unwrap_or_default();
        return Some(format!(
            "supagate builds it from its sources (extensions/pgrx) for each PostgreSQL major \
             with server headers, and installs it into the cluster it runs; {built}{or}"
        ));
    }
    if packaged.is_some() {
        return packaged;
    }
    if ["pg_net", "pg_cron", "supabase_vault", "pgjwt", "pgmq"].contains(&name) {
        return Some(
            "supagate brings it to the PostgreSQL cluster it runs itself (without DATABASE_URL); \
             this server does not have it"
                .into(),
        );
    }
    SUPABASE_ONLY.contains(&name).then(|| {
        format!(
            "Supabase builds it into its own PostgreSQL image and no distribution packages it; \
             install a build of it for PostgreSQL {major} (its authors publish them with their \
             releases) into the PostgreSQL supagate runs"
        )
    })
}

/// Extensions packaged for Debian: (extension, package suffix, whether Debian itself ships it; the others come from the
/// PostgreSQL project's apt repository, apt.postgresql.org).
const PACKAGED: &[(&str, &str, bool)] = &[
    ("postgis", "postgis-3", true),
    ("postgis_raster", "postgis-3", true),
    ("postgis_topology", "postgis-3", true),
    ("postgis_tiger_geocoder", "postgis-3", true),
    ("address_standardizer", "postgis-3", true),
    ("vector", "pgvector", false),
    ("pgtap", "pgtap", true),
    ("http", "http", false),
    ("hypopg", "hypopg", true),
    ("plpgsql_check", "plpgsql-check", true),
    ("pgaudit", "pgaudit", true),
    ("pg_repack", "repack", true),
    ("pgrouting", "pgrouting", true),
    ("pg_partman", "partman", true),
    ("orafce", "orafce", true),
    ("rum", "rum", true),
    ("plv8", "plv8", false),
    ("pg_hint_plan", "pg-hint-plan", false),
    ("h3", "h3", false),
    ("pgq", "pgq3", true),
    ("prefix", "prefix", true),
    ("ip4r", "ip4r", true),
    ("pg_squeeze", "squeeze", false),
    ("hll", "hll", true),
    ("semver", "semver", true),
    ("unit", "unit", true),
    ("periods", "periods", true),
    ("tdigest", "tdigest", true),
    ("jsquery", "jsquery", true),
    ("set_user", "set-user", true),
    ("first_last_agg", "first-last-agg", true),
    ("pg_dirtyread", "dirtyread", true),
    ("numeral", "numeral", true),
];

/// How to install `name` from a distribution's packages, when it is packaged.
fn packaged_way(name: &str, major: &str) -> Option<String> {
    let (_, pkg, debian) = PACKAGED.iter().find(|(n, _, _)| *n == name)?;
    let deb = format!("postgresql-{major}-{pkg}");
    let from = if *debian {
        ""
    } else {
        " from the PostgreSQL project's apt repository (apt.postgresql.org)"
    };
    let mut ways = vec![format!(
        "Debian/Ubuntu: sudo apt-get install -y {deb}{from}"
    )];
    if let Some((_, formula)) = HOMEBREW.iter().find(|(n, _)| *n == name) {
        ways.push(format!("macOS: brew install {formula}"));
    }
    if let Some((_, rpm)) = PGDG_RPM.iter().find(|(n, _)| *n == name) {
        ways.push(format!(
            "Fedora/RHEL: sudo dnf install -y {rpm}_{major} from the PostgreSQL project's \
             repository (download.postgresql.org)"
        ));
    }
    Some(format!("install it: {}", ways.join("; ")))
}

/// Procedural languages that come in packages of their own (Debian's names).
const PROCEDURAL_LANGUAGES: &[(&str, &str)] = &[
    ("plpython3u", "postgresql-plpython3-{major}"),
    ("plperl", "postgresql-plperl-{major}"),
    ("plperlu", "postgresql-plperl-{major}"),
    ("bool_plperl", "postgresql-plperl-{major}"),
    ("jsonb_plperl", "postgresql-plperl-{major}"),
    ("pltcl", "postgresql-pltcl-{major}"),
    ("pltclu", "postgresql-pltcl-{major}"),
    ("jsonb_plpython3u", "postgresql-plpython3-{major}"),
    ("hstore_plpython3u", "postgresql-plpython3-{major}"),
    ("plr", "postgresql-{major}-plr"),
    ("pllua", "postgresql-{major}-pllua"),
    ("plsh", "postgresql-{major}-plsh"),
];

/// Why plv8 is missing (supagate's stand-in raises the same words on `create extension plv8`).
const PLV8: &str = "plv8 is not available in supagate: it needs the V8 engine, which cannot be \
                    built here";

/// Homebrew formulae of extensions (macOS).
const HOMEBREW: &[(&str, &str)] = &[
    ("vector", "pgvector"),
    ("postgis", "postgis"),
    ("postgis_raster", "postgis"),
    ("postgis_topology", "postgis"),
];

/// The PostgreSQL project's RPM names (Fedora/RHEL), without the `_<major>` suffix.
const PGDG_RPM: &[(&str, &str)] = &[
    ("vector", "pgvector"),
    ("postgis", "postgis35"),
    ("postgis_raster", "postgis35"),
    ("postgis_topology", "postgis35"),
    ("http", "pgsql_http"),
    ("hypopg", "hypopg"),
    ("plpgsql_check", "plpgsql_check"),
    ("pg_repack", "pg_repack"),
    ("pg_partman", "pg_partman"),
    ("plv8", "plv8"),
    ("orafce", "orafce"),
];

/// For "extension X is not available" errors: which package provides X.
pub fn missing_extension_hint(message: &str, detail: Option<&str>) -> Option<String> {
    let text = format!("{message} {}", detail.unwrap_or(""));
    if let Some(rest) = text.strip_prefix("language \"") {
        // A function in a language nobody created: the extension of that name provides it.
        let name = rest.split('"').next()?;
        if !text.contains("does not exist") {
            return None;
        }
        if ["plv8", "plls", "plcoffee"].contains(&name) {
            return Some(format!(
                "{PLV8}; rewrite the functions in plpgsql or SQL, or install a plv8 build into \
                 the PostgreSQL supagate runs (Debian/Ubuntu: postgresql-<major>-plv8 from \
                 apt.postgresql.org)"
            ));
        }
        let source = extension_source(name, "15")?;
        return Some(format!(
            "the language \"{name}\" is an extension this PostgreSQL server does not have: \
             {source}; then start again"
        ));
    }
    let (name, major) = if let Some(i) = text.find("/extension/") {
        // could not open extension control file "/usr/share/postgresql/15/extension/x.control"
        let rest = &text[i + "/extension/".len()..];
        let name = rest.split(".control").next()?;
        let major = text[..i]
            .rsplit('/')
            .find(|s| s.chars().all(|c| c.is_ascii_digit()) && !s.is_empty())
            .unwrap_or("15");
        (name.to_string(), major.to_string())
    } else if let Some(rest) = text.strip_prefix("extension \"") {
        let name = rest.split('"').next()?;
        if !text.contains("is not available") {
            return None;
        }
        (name.to_string(), "15".to_string())
    } else {
        return None;
    };
    let source = extension_source(&name, &major)
        .unwrap_or_else(|| format!("look for a package of the extension for PostgreSQL {major}"));
    Some(format!(
        "the extension \"{name}\" is not installed on this PostgreSQL server: {source}; then \
         start again (supagate finds what is installed into the PostgreSQL it runs)"
    ))
}

#[cfg(test)]
mod tests {
    use super::missing_extension_hint;

    #[test]
    fn missing_extensions_name_their_package() {
        let h = missing_extension_hint(
            "could not open extension control file \"/usr/share/postgresql/15/extension/postgis.control\": No such file or directory",
            None,
        )
        .unwrap();
        assert!(
            h.contains("\"postgis\"") && h.contains("postgresql-15-postgis-3"),
            "{h}"
        );
        let h = missing_extension_hint(
            "extension \"vector\" is not available",
            Some("Could not open extension control file \"/usr/share/postgresql/16/extension/vector.control\": No such file or directory."),
        )
        .unwrap();
        assert!(h.contains("postgresql-16-pgvector"), "{h}");
        let h =
            missing_extension_hint("extension \"pg_stat_monitor\" is not available", None).unwrap();
        assert!(h.contains("no distribution packages it"), "{h}");
        let h = missing_extension_hint("extension \"http\" is not available", None).unwrap();
        assert!(
            h.contains("postgresql-15-http") && h.contains("pgsql_http_15"),
            "{h}"
        );
        assert!(missing_extension_hint("relation \"x\" does not exist", None).is_none());
    }

    #[test]
    fn languages_and_supagates_own_extensions_say_how_to_get_them() {
        // (message, words the hint has)
        let cases: &[(&str, &[&str])] = &[
            (
                "language \"plv8\" does not exist",
                &["plv8 is not available in supagate: it needs the V8 engine"],
            ),
            (
                "language \"plpython3u\" does not exist",
                &["sudo apt-get install -y postgresql-plpython3-15"],
            ),
            (
                "extension \"pltcl\" is not available",
                &["postgresql-pltcl-15"],
            ),
            (
                "extension \"rum\" is not available",
                &["sudo apt-get install -y postgresql-15-rum"],
            ),
            (
                "could not open extension control file \"/usr/share/postgresql/16/extension/pg_jsonschema.control\": No such file or directory",
                &[
                    "supagate builds it from its sources (extensions/pgrx)",
                    "no build of it for PostgreSQL 16",
                    "postgresql-server-dev-16 and libclang-dev",
                    "scripts/build-extensions",
                ],
            ),
        ];
        for (message, words) in cases {
            let hint = missing_extension_hint(message, None).expect(message);
            for w in *words {
                assert!(hint.contains(w), "{message}: {hint}");
            }
        }
        assert!(missing_extension_hint("language \"plpgsql\" does not exist", None).is_none());
    }
}
