//! A fuzz harness for the grammar and the planner: random requests stitched from the grammar's
//! own tokens (and plain noise), nested up to far past the limit, planned against the shop's
//! schema on a thread with a small stack, directly and through the plan cache (which must answer
//! the same). Any panic, or a stack overflow (which aborts the test process), is a crash.
//!
//! `cargo test -p query-engine fuzz -- --nocapture` runs the short mode (CI); set
//! `FUZZ_ITERATIONS=2000000` (and `--release`) for the long mode. Both print executions, crashes
//! and how many requests planned versus were refused.

use crate::plan::{EngineConfig, Input};
use crate::request::{Method, Resource, parse_prefer};
use crate::schema::fixture;
use crate::{plan, plan_cached};

/// xorshift64*: deterministic, so a crash reproduces with the same iteration count.
struct Rng(u64);

impl Rng {
    fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
}

/// Pieces of the query language, and noise.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "(",
    ")",
    ",",
    ".",
    ".",
    "or",
    "and",
    "not.",
    "eq.",
    "neq.",
    "gt.",
    "in.",
    "is.",
    "null",
    "true",
    "like.",
    "ilike.",
    "fts(english).",
    "cs.",
    "{",
    "}",
    "any",
    "(all)",
    "id",
    "name",
    "slug",
    "category_id",
    "categories",
    "products",
    "product_categories",
    "*",
    ":",
    "::text",
    "::",
    "->",
    "->>",
    "0",
    "-1",
    "\"",
    "\\",
    "!inner",
    "!left",
    "!",
    "...",
    "%",
    "asc",
    "desc",
    "nullsfirst",
    "nullslast",
    "a b",
    "é",
    "\u{0}",
    "$1",
    "'",
    ";",
    "--",
    "9999999999999999999999",
];

const KEYS: &[&str] = &[
    "select",
    "or",
    "and",
    "not.or",
    "order",
    "limit",
    "offset",
    "columns",
    "on_conflict",
    "id",
    "name",
    "categories.order",
    "categories.limit",
    "categories.or",
    "products.name",
    "x",
];

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> &'a str {
    from[(rng.next_u32() as usize) % from.len()]
}

fn random_text(rng: &mut Rng) -> String {
    let mut s = String::new();
    // Now and then a deep, well-formed nest, to find any recursion the bound misses.
    if rng.next_u32().is_multiple_of(20) {
        let depth = (rng.next_u32() % 3000) as usize;
        let (head, open, leaf) = [
            ("(", "or(", "id.eq.1"),
            ("(", "not.and(", "name.is.null"),
            ("", "categories(", "id"),
            ("", "products!inner(", "*"),
        ][(rng.next_u32() % 4) as usize];
        s.push_str(head);
        s.push_str(&open.repeat(depth));
        s.push_str(leaf);
        s.push_str(&")".repeat(depth + head.len()));
        return s;
    }
    for _ in 0..(rng.next_u32() % 24) {
        s.push_str(pick(rng, TOKENS));
    }
    s
}

fn one_request(rng: &mut Rng) -> (Method, Resource, Vec<(String, String)>, String) {
    let method = [
        Method::Get,
        Method::Head,
        Method::Post,
        Method::Patch,
        Method::Put,
        Method::Delete,
    ][(rng.next_u32() % 6) as usize];
    let resource = if rng.next_u32().is_multiple_of(6) {
        Resource::Rpc(pick(rng, &["add", "search_products", "nope"]).to_string())
    } else {
        Resource::Table(pick(rng, &["products", "categories", "product_categories"]).to_string())
    };
    let query = (0..(rng.next_u32() % 5))
        .map(|_| (pick(rng, KEYS).to_string(), random_text(rng)))
        .collect();
    // Bodies of a few layouts with other values each time, so that writes reuse cached shapes.
    let text = |rng: &mut Rng| serde_json::Value::from(random_text(rng)).to_string();
    let body = match rng.next_u32() % 6 {
        0 => String::new(),
        1 => format!(r#"{{"name":{},"slug":"y"}}"#, text(rng)),
        2 => r#"[{"name":"x"},{"id":1}]"#.to_string(),
        3 => format!(r#"[{{"id":{},"name":{}}}]"#, rng.next_u32(), text(rng)),
        _ => random_text(rng),
    };
    (method, resource, query, body)
}

#[test]
fn fuzz_the_grammar_and_planner() {
    let iterations: u64 = std::env::var("FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let report = std::thread::Builder::new()
        // Small on purpose: the recursion bound must hold with room to spare.
        .stack_size(512 * 1024)
        .spawn(move || {
            let cache = crate::plan_cache::Compiled::new(fixture::shop());
            let cfg = EngineConfig {
                max_rows: Some(1000),
                schemas: vec!["public".into()],
            };
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
            let (mut planned, mut refused, mut crashes) = (0u64, 0u64, Vec::new());
            for _ in 0..iterations {
                let (method, resource, query, body) = one_request(&mut rng);
                let prefer = parse_prefer(["return=representation, count=exact"]);
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let input = Input {
                        method,
                        resource: resource.clone(),
                        query: &query,
                        accept: None,
                        prefer,
                        range: None,
                        profile: None,
                        content_type: None,
                        body: body.as_bytes(),
                    };
                    // The plan cache answers as planning directly does.
                    let direct = plan(&input, &cache, &cfg);
                    let cached = plan_cached(&input, &cache, &cfg);
                    assert_eq!(format!("{direct:?}"), format!("{cached:?}"));
                    direct.map(|p| p.statement.sql.len())
                }));
                match result {
                    Ok(Ok(_)) => planned += 1,
                    Ok(Err(e)) => {
                        // 300 is PostgREST's answer to an ambiguous embedding.
                        assert!(
                            (300..600).contains(&e.status),
                            "status {} for {query:?}",
                            e.status
                        );
                        refused += 1
                    }
                    Err(_) => crashes.push(format!("{method:?} {resource:?} {query:?}")),
                }
            }
            (planned, refused, crashes)
        })
        .expect("fuzz thread")
        .join()
        .expect("the fuzz thread did not crash");
    let (planned, refused, crashes) = report;
    println!(
        "fuzz: {iterations} executions, {} crashes ({planned} planned, {refused} refused)",
        crashes.len()
    );
    assert!(crashes.is_empty(), "panics on: {crashes:#?}");
    assert!(
        planned > 0 && refused > 0,
        "the generator reaches both outcomes"
    );
}
