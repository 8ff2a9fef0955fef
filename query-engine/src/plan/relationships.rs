//! Finding the relationship an embed means, as PostgREST's findRel: every relationship from the
//! parent (foreign keys both ways, many-to-many through junction tables, computed relationships)
//! filtered by the embed's target and hint; none is PGRST200, more than one PGRST201.

use super::tree::Rel;
use crate::ast::Embed;
use crate::error::ApiError;
use crate::error::Pgrst;
use crate::schema::{ForeignKey, SchemaCache, Table};
use serde_json::Value;

struct Candidate<'c> {
    target: &'c Table,
    rel: Rel<'c>,
    /// A foreign key from a table to itself (two relationships: to its parent, to its children).
    is_self: bool,
}

impl Candidate<'_> {
    /// The constraint's name, and its column pairs as seen from the parent (origin, target).
    fn constraint(&self) -> Option<(&str, Vec<(&str, &str)>)> {
        fn pairs<'a>(a: &'a [String], b: &'a [String]) -> Vec<(&'a str, &'a str)> {
            a.iter()
                .map(String::as_str)
                .zip(b.iter().map(String::as_str))
                .collect()
        }
        match &self.rel {
            Rel::ToOne {
                fk,
                parent_holds_fk: true,
            } => Some((&fk.name, pairs(&fk.columns, &fk.foreign_columns))),
            Rel::ToOne { fk, .. } | Rel::ToMany { fk } => {
                Some((&fk.name, pairs(&fk.foreign_columns, &fk.columns)))
            }
            _ => None,
        }
    }

    fn single_column(&self, origin_side: bool) -> Option<&str> {
        match self.constraint()?.1.as_slice() {
            [(col, fcol)] => Some(if origin_side { col } else { fcol }),
            _ => None,
        }
    }

    fn is_many_to_one(&self) -> bool {
        matches!(
            self.rel,
            Rel::ToOne {
                parent_holds_fk: true,
                ..
            }
        )
    }

    fn is_one_to_many(&self) -> bool {
        matches!(self.rel, Rel::ToMany { .. })
    }

    /// Whether the embed `target!hint` means this relationship (PostgREST's rules).
    fn matches(&self, target: &str, hint: Option<&str>) -> bool {
        if let Rel::Computed { func, .. } = self.rel {
            return func.name == target;
        }
        let names_table = self.target.name == target;
        let constraint = self.constraint().map(|(c, _)| c);
        if self.is_self {
            return match hint {
                // children:family(*) is the one-to-many; parent_id(*) the many-to-one.
                None => {
                    (names_table && self.is_one_to_many())
                        || (self.single_column(true) == Some(target) && self.is_many_to_one())
                }
                Some(h) => {
                    names_table && self.is_one_to_many() && self.single_column(false) == Some(h)
                }
            };
        }
        let by_key = !self.target.is_view();
        match hint {
            None => {
                names_table
                    || (by_key && constraint == Some(target))
                    || (by_key && self.single_column(true) == Some(target))
            }
            Some(h) => {
                names_table
                    && (constraint == Some(h)
                        || self.single_column(true) == Some(h)
                        || self.single_column(false) == Some(h)
                        || matches!(self.rel, Rel::ManyToMany { junction, .. } if junction.name == h))
            }
        }
    }
}

fn is_unique(t: &Table, cols: &[String]) -> bool {
    t.primary_key == cols || t.unique_keys.iter().any(|u| u.as_slice() == cols)
}

/// Every relationship from `parent` to relations of its schema.
fn all_from<'c>(cache: &'c SchemaCache, parent: &'c Table) -> Vec<Candidate<'c>> {
    let schema = &parent.schema;
    let fks = &cache.foreign_keys;
    let mut out = Vec::new();
    let same = |s: &str, t: &str, table: &Table| s == table.schema && t == table.name;
    for fk in fks {
        let is_self = fk.schema == fk.foreign_schema && fk.table == fk.foreign_table;
        if same(&fk.schema, &fk.table, parent)
            && fk.foreign_schema == *schema
            && let Some(target) = cache.table(&fk.foreign_schema, &fk.foreign_table)
        {
            out.push(Candidate {
                target,
                rel: Rel::ToOne {
                    fk,
                    parent_holds_fk: true,
                },
                is_self,
            });
        }
        if same(&fk.foreign_schema, &fk.foreign_table, parent)
            && fk.schema == *schema
            && let Some(target) = cache.table(&fk.schema, &fk.table)
        {
            let rel = if is_unique(target, &fk.columns) {
                Rel::ToOne {
                    fk,
                    parent_holds_fk: false,
                }
            } else {
                Rel::ToMany { fk }
            };
            out.push(Candidate {
                target,
                rel,
                is_self,
            });
        }
    }
    for junction in cache.tables().filter(|t| t.schema == *schema) {
        let key_cols = |f: &ForeignKey| f.columns.iter().all(|c| junction.primary_key.contains(c));
        let from_junction =
            |f: &&ForeignKey| f.schema == junction.schema && f.table == junction.name;
        for to_parent in fks
            .iter()
            .filter(from_junction)
            .filter(|f| same(&f.foreign_schema, &f.foreign_table, parent))
        {
            for to_child in fks.iter().filter(from_junction) {
                if to_parent.name != to_child.name
                    && key_cols(to_parent)
                    && key_cols(to_child)
                    && let Some(target) =
                        cache.table(&to_child.foreign_schema, &to_child.foreign_table)
                    && target.schema == *schema
                {
                    out.push(Candidate {
                        target,
                        rel: Rel::ManyToMany {
                            junction,
                            to_parent,
                            to_child,
                        },
                        is_self: false,
                    });
                }
            }
        }
    }
    for func in cache.computed_relationships() {
        if func.schema == *schema
            && func
                .arg_table
                .as_ref()
                .is_some_and(|(s, t)| same(s, t, parent))
            && let Some((s, t)) = &func.return_table
            && let Some(target) = cache.table(s, t)
        {
            out.push(Candidate {
                target,
                rel: Rel::Computed {
                    func,
                    to_one: func.single_row,
                },
                is_self: false,
            });
        }
    }
    out
}

pub(super) fn find<'c>(
    cache: &'c SchemaCache,
    parent: &'c Table,
    embed: &Embed,
) -> Result<(&'c Table, Rel<'c>), ApiError> {
    let all = all_from(cache, parent);
    let related: Vec<&str> = all.iter().map(|c| c.target.name.as_str()).collect();
    let mut candidates: Vec<Candidate<'c>> = all
        .into_iter()
        .filter(|c| c.matches(&embed.relation, embed.hint.as_deref()))
        .collect();
    match candidates.len() {
        0 => {
            let e = ApiError::pgrst(Pgrst::NoRelationship,
                format!(
                    "Could not find a relationship between '{}' and '{}' in the schema cache",
                    parent.name, embed.relation
                ),
            )
            .details(format!(
                "Searched for a foreign key relationship between '{}' and '{}'{} in the schema '{}', but no matches were found.",
                parent.name,
                embed.relation,
                embed
                    .hint
                    .as_ref()
                    .map(|h| format!(" using the hint '{h}'"))
                    .unwrap_or_default(),
                parent.schema
            ));
            Err(
                match no_relationship_hint(cache, parent, &embed.relation, &related) {
                    Some(h) => e.hint(h),
                    None => e,
                },
            )
        }
        1 => {
            let c = candidates.pop().expect("one candidate");
            Ok((c.target, c.rel))
        }
        _ => {
            let details: Vec<Value> = candidates
                .iter()
                .map(|c| describe(parent, c.target, &c.rel))
                .collect();
            let hints: Vec<String> = candidates
                .iter()
                .map(|c| {
                    let via = match &c.rel {
                        Rel::ToOne { fk, .. } | Rel::ToMany { fk } => fk.name.as_str(),
                        Rel::ManyToMany { junction, .. } => junction.name.as_str(),
                        Rel::Computed { func, .. } => func.name.as_str(),
                    };
                    format!("'{}!{via}'", c.target.name)
                })
                .collect();
            Err(ApiError::pgrst(Pgrst::AmbiguousRelationship,
                format!(
                    "Could not embed because more than one relationship was found for '{}' and '{}'",
                    parent.name, embed.relation
                ),
            )
            .details_json(Value::Array(details))
            .hint(format!(
                "Try changing '{}' to one of the following: {}. Find the desired relationship in the 'details' key.",
                embed.relation,
                hints.join(", ")
            )))
        }
    }
}

/// PGRST200's hint, as PostgREST's: one of `related` (the parent's related relations) named like
/// the embed, else (the parent has none) a relation with relationships named like the parent.
fn no_relationship_hint(
    cache: &SchemaCache,
    parent: &Table,
    child: &str,
    related: &[&str],
) -> Option<String> {
    if !related.is_empty() {
        let (_, found) = crate::fuzzy::matches(related.iter().copied(), child, 0.33)
            .into_iter()
            .find(|(score, _)| *score < 1.0)?;
        Some(format!("Perhaps you meant '{found}' instead of '{child}'."))
    } else {
        let parents: Vec<&str> = cache
            .tables()
            .filter(|t| t.schema == parent.schema && !all_from(cache, t).is_empty())
            .map(|t| t.name.as_str())
            .collect();
        let found = crate::fuzzy::best(parents, &parent.name, 0.33)?;
        Some(format!(
            "Perhaps you meant '{found}' instead of '{}'.",
            parent.name
        ))
    }
}

/// One candidate of an ambiguous embedding, as PostgREST lists it in PGRST201's details.
pub(super) fn describe(parent: &Table, child: &Table, r: &Rel) -> Value {
    let (parent, child) = (&parent.name, &child.name);
    let cols = |c: &[String]| format!("({})", c.join(", "));
    let (cardinality, relationship) = match r {
        Rel::ToOne {
            fk,
            parent_holds_fk: true,
        } => (
            "many-to-one",
            format!(
                "{} using {parent}{} and {child}{}",
                fk.name,
                cols(&fk.columns),
                cols(&fk.foreign_columns)
            ),
        ),
        Rel::ToOne { fk, .. } => (
            "one-to-one",
            format!(
                "{} using {parent}{} and {child}{}",
                fk.name,
                cols(&fk.foreign_columns),
                cols(&fk.columns)
            ),
        ),
        Rel::ToMany { fk } => (
            "one-to-many",
            format!(
                "{} using {parent}{} and {child}{}",
                fk.name,
                cols(&fk.foreign_columns),
                cols(&fk.columns)
            ),
        ),
        Rel::ManyToMany {
            junction,
            to_parent,
            to_child,
        } => (
            "many-to-many",
            format!(
                "{} using {}{} and {}{}",
                junction.name,
                to_parent.name,
                cols(&to_parent.columns),
                to_child.name,
                cols(&to_child.columns)
            ),
        ),
        Rel::Computed { func, .. } => ("computed", func.name.clone()),
    };
    serde_json::json!({
        "cardinality": cardinality,
        "embedding": format!("{parent} with {child}"),
        "relationship": relationship,
    })
}
