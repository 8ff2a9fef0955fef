//! "Perhaps you meant …" hints, scored as PostgREST's fuzzy set scores them: names lower-cased
//! and stripped of everything but letters, digits, spaces and commas; candidates found by the
//! cosine similarity of their 3-grams (then 2-grams) padded with `-`; the best 50 rescored by
//! Levenshtein similarity of the lower-cased names; an exact (normalized) match scores 1.

use std::collections::HashMap;

fn normalized(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || c.is_whitespace() || *c == ',')
        .collect()
}

fn grams(s: &str, n: usize) -> HashMap<String, usize> {
    let mut padded: Vec<char> = format!("-{s}-").chars().collect();
    while padded.len() < n {
        padded.push('-');
    }
    let mut out = HashMap::new();
    for w in padded.windows(n) {
        *out.entry(w.iter().collect()).or_insert(0) += 1;
    }
    out
}

fn cosine(a: &HashMap<String, usize>, b: &HashMap<String, usize>) -> f64 {
    let norm = |v: &HashMap<String, usize>| v.values().map(|x| (x * x) as f64).sum::<f64>().sqrt();
    let dot: usize = a.iter().map(|(g, x)| x * b.get(g).unwrap_or(&0)).sum();
    if dot == 0 {
        0.0
    } else {
        dot as f64 / (norm(a) * norm(b))
    }
}

/// Candidates matching `query` with a score of at least `min_score`, best first.
pub fn matches<'a>(
    candidates: impl IntoIterator<Item = &'a str>,
    query: &str,
    min_score: f64,
) -> Vec<(f64, &'a str)> {
    let q = normalized(query);
    let items: Vec<(&str, String)> = candidates.into_iter().map(|c| (c, normalized(c))).collect();
    if let Some((c, _)) = items.iter().find(|(_, n)| *n == q) {
        return vec![(1.0, c)];
    }
    for n in [3, 2] {
        let qg = grams(&q, n);
        let mut scored: Vec<(f64, &str, &str)> = items
            .iter()
            .map(|(c, norm)| (cosine(&qg, &grams(norm, n)), *c, norm.as_str()))
            .filter(|(s, _, _)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.truncate(50);
        let lower = query.to_lowercase();
        let mut rescored: Vec<(f64, &str)> = scored
            .into_iter()
            .map(|(_, c, _)| {
                let c_lower = c.to_lowercase();
                let longest = c_lower.chars().count().max(lower.chars().count()).max(1);
                let distance = strsim::levenshtein(&c_lower, &lower);
                (1.0 - distance as f64 / longest as f64, c)
            })
            .filter(|(s, _)| *s >= min_score)
            .collect();
        rescored.sort_by(|a, b| b.0.total_cmp(&a.0));
        if !rescored.is_empty() {
            return rescored;
        }
    }
    vec![]
}

/// The best candidate scoring at least `min_score`.
pub fn best<'a>(
    candidates: impl IntoIterator<Item = &'a str>,
    query: &str,
    min_score: f64,
) -> Option<&'a str> {
    matches(candidates, query, min_score)
        .first()
        .map(|(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_as_postgrest() {
        // PostgREST's own examples.
        let procs = ["test", "another"];
        assert_eq!(best(procs, "testt", 0.75), Some("test"));
        assert_eq!(best(procs, "noclosealternative", 0.75), None);
        assert_eq!(best(["films", "roles"], "film", 0.33), Some("films"));
        assert_eq!(
            best(
                ["(name, param, val)", "(attr, id)"],
                "(nam, pqaram, vall)",
                0.33
            ),
            Some("(name, param, val)")
        );
        assert_eq!(
            best(["(name, param, val)", "(attr, id)"], "(id)", 0.33),
            Some("(attr, id)")
        );
        assert_eq!(best(["products"], "Products", 0.75), Some("products"));
    }
}
