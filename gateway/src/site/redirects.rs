//! The site's `_redirects` file, in the format Netlify and Cloudflare Pages read: one rule a line,
//! `FROM TO [STATUS][!]`, first match wins. FROM is a path with `:name` segments and a trailing
//! `*` splat; TO may use them (`:name`, `:splat`). Status 200 serves TO in place of the path (a
//! file of the site, or `/functions/v1/…`, an Edge Function of this gateway), 301/302/303/307/308
//! redirect to it, 404 and 410 serve it with that status (the SPA's own not-found page). Rules
//! apply to paths no file answers, unless forced with `!`. Without the file, every page path is
//! the SPA's index.

use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    from: Vec<Segment>,
    to: String,
    status: u16,
    force: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Named(String),
    Splat,
}

/// What a matching rule does with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Serve this site path, or Edge Function path, with this status (200, 404, 410).
    Serve { path: String, status: u16 },
    /// Redirect there.
    Redirect { location: String, status: u16 },
}

/// The rules of a `_redirects` text, and a note for each line that is not one.
pub fn parse(text: &str) -> (Vec<Rule>, Vec<String>) {
    let mut rules = Vec::new();
    let mut notes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split_whitespace().collect();
        let (from, to) = match parts.as_slice() {
            [from, to, ..] => (*from, *to),
            _ => {
                notes.push(format!("line {}: a rule needs a path and a target", n + 1));
                continue;
            }
        };
        let status_word = parts.get(2).copied().unwrap_or("301");
        let force = status_word.ends_with('!');
        let status = match status_word.trim_end_matches('!').parse::<u16>() {
            Ok(s @ (200 | 301 | 302 | 303 | 307 | 308 | 404 | 410)) => s,
            _ => {
                notes.push(format!(
                    "line {}: status {status_word} is not one of 200, 301, 302, 303, 307, 308, 404, 410 (conditions and proxies to other hosts are not supported)",
                    n + 1
                ));
                continue;
            }
        };
        if parts.len() > 3 {
            notes.push(format!(
                "line {}: conditions ({}) are not supported; the rule is skipped",
                n + 1,
                parts[3..].join(" ")
            ));
            continue;
        }
        if !from.starts_with('/') || (status != 301 && status != 302 && !to.starts_with('/')) {
            notes.push(format!(
                "line {}: paths start with / (only a redirect may go to another host)",
                n + 1
            ));
            continue;
        }
        let mut segments: Vec<Segment> = Vec::new();
        for s in from.trim_matches('/').split('/').filter(|s| !s.is_empty()) {
            segments.push(match s {
                "*" => Segment::Splat,
                s if s.starts_with(':') => Segment::Named(s[1..].to_string()),
                s => Segment::Literal(s.to_string()),
            });
        }
        if segments[..segments.len().saturating_sub(1)].contains(&Segment::Splat) {
            notes.push(format!("line {}: * may only end a path", n + 1));
            continue;
        }
        rules.push(Rule {
            from: segments,
            to: to.to_string(),
            status,
            force,
        });
    }
    (rules, notes)
}

impl Rule {
    /// The values of its `:name` segments and splat when `path` matches.
    fn matches(&self, path: &str) -> Option<HashMap<String, String>> {
        let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let mut found = HashMap::new();
        for (i, seg) in self.from.iter().enumerate() {
            match seg {
                Segment::Splat => {
                    found.insert("splat".to_string(), parts.get(i..).unwrap_or(&[]).join("/"));
                    return Some(found);
                }
                Segment::Literal(l) => {
                    if parts.get(i) != Some(&l.as_str()) {
                        return None;
                    }
                }
                Segment::Named(n) => {
                    found.insert(n.clone(), (*parts.get(i)?).to_string());
                }
            }
        }
        (parts.len() == self.from.len()).then_some(found)
    }
}

/// What the first rule matching `path` does (`file_exists`: a file of the site answers the path,
/// which only forced rules override).
pub fn resolve(rules: &[Rule], path: &str, file_exists: bool) -> Option<Outcome> {
    let rule_and_values = rules
        .iter()
        .filter(|r| r.force || !file_exists)
        .find_map(|r| r.matches(path).map(|v| (r, v)))?;
    let (rule, values) = rule_and_values;
    let mut target = rule.to.clone();
    // Longer names first, so `:splat` is not cut short by a `:s` segment.
    let mut names: Vec<&String> = values.keys().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    for name in names {
        target = target.replace(&format!(":{name}"), &values[name]);
    }
    Some(match rule.status {
        301 | 302 | 303 | 307 | 308 => Outcome::Redirect {
            location: target,
            status: rule.status,
        },
        status => Outcome::Serve {
            path: target,
            status,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_as_netlify_reads_them() {
        let (rules, notes) = parse(
            "# the shop\n\
             /                 /index.html  200\n\
             /product/:id      /index.html  200\n\
             /occasions/*      /index.html  200\n\
             /sitemap.xml      /functions/v1/sitemap  200\n\
             /old/:slug        /occasions/:slug\n\
             /blog/*           https://blog.example/:splat  302\n\
             /assets/*         /index.html  404!\n\
             /*                /index.html  404\n\
             /x  /y  200  Country=us\n\
             /z  /y  418\n\
             lonely\n",
        );
        assert_eq!(rules.len(), 8);
        assert_eq!(notes.len(), 3, "{notes:?}");
        // (path, a file answers it, outcome)
        let serve = |path: &str, status| {
            Some(Outcome::Serve {
                path: path.into(),
                status,
            })
        };
        let cases = [
            ("/", false, serve("/index.html", 200)),
            ("/product/42", false, serve("/index.html", 200)),
            ("/product/42/more", false, serve("/index.html", 404)),
            ("/occasions", false, serve("/index.html", 200)),
            ("/occasions/plants", false, serve("/index.html", 200)),
            ("/sitemap.xml", false, serve("/functions/v1/sitemap", 200)),
            (
                "/old/plants",
                false,
                Some(Outcome::Redirect {
                    location: "/occasions/plants".into(),
                    status: 301,
                }),
            ),
            (
                "/blog/2026/spring",
                false,
                Some(Outcome::Redirect {
                    location: "https://blog.example/2026/spring".into(),
                    status: 302,
                }),
            ),
            ("/no/such/page", false, serve("/index.html", 404)),
            ("/favicon.ico", true, None),
            ("/assets/app.js", true, serve("/index.html", 404)),
        ];
        for (path, exists, outcome) in cases {
            assert_eq!(resolve(&rules, path, exists), outcome, "{path}");
        }
    }
}
