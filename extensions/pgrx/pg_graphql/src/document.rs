//! A parsed document: the operation a request runs, its fragments, and selection sets
//! flattened for a type (fragment spreads and inline fragments that apply to it expanded,
//! `@skip`/`@include` applied, fields with the same response key merged).

use crate::value::{Val, Variables};
use graphql_parser::query::{
    Definition, Document, Field, FragmentDefinition, OperationDefinition, Selection, SelectionSet,
    TypeCondition, Value,
};
use indexmap::IndexMap;
use std::collections::HashSet;

pub type Fragments<'a> = [FragmentDefinition<'a, String>];

/// How deep fragments may nest in one another.
const FRAGMENT_DEPTH: u32 = 50;

/// How many fields a request's selections may expand to, all selection sets together. Fragments
/// spread twice in each of a chain of fragments double at each step: this bounds the work (and
/// the memory) such a request takes, far above what a real one (the full introspection of a
/// schema of hundreds of tables) needs.
pub const MAX_EXPANDED_FIELDS: usize = 1_000_000;

/// The response key of a field.
pub fn key<'f>(field: &'f Field<'_, String>) -> &'f str {
    field.alias.as_deref().unwrap_or(&field.name)
}

/// The operation `operation_name` names (or the only one), with the document's fragments.
pub fn pick<'a>(
    doc: Document<'a, String>,
    operation_name: Option<&str>,
) -> Result<
    (
        OperationDefinition<'a, String>,
        Vec<FragmentDefinition<'a, String>>,
    ),
    String,
> {
    let mut operations = vec![];
    let mut fragments = vec![];
    for def in doc.definitions {
        match def {
            Definition::Operation(o) => operations.push(o),
            Definition::Fragment(f) => fragments.push(f),
        }
    }
    let names: Vec<Option<String>> = operations
        .iter()
        .map(|o| match o {
            OperationDefinition::Query(q) => q.name.clone(),
            OperationDefinition::Mutation(m) => m.name.clone(),
            _ => None,
        })
        .collect();
    if names.len() > 1 && names.iter().any(Option::is_none) {
        return Err("Anonymous operations must be the only defined operation".to_string());
    }
    if names.iter().collect::<HashSet<_>>().len() != names.len() {
        return Err("Operation names must be unique".to_string());
    }
    let mut visits = 0;
    for f in &fragments {
        check_cycles(f, &mut HashSet::new(), &fragments, 1, &mut visits)?;
    }
    let only = names.len() == 1 && operation_name.is_none();
    let chosen = operations
        .into_iter()
        .zip(&names)
        .find(|(_, n)| n.as_deref() == operation_name || only)
        .map(|(o, _)| o)
        .ok_or("Operation not found")?;
    Ok((chosen, fragments))
}

fn check_cycles<'b>(
    fragment: &'b FragmentDefinition<'_, String>,
    visited: &mut HashSet<&'b str>,
    fragments: &'b Fragments,
    depth: u32,
    visits: &mut usize,
) -> Result<(), String> {
    *visits += 1;
    if *visits > MAX_EXPANDED_FIELDS {
        return Err(format!(
            "The query's fragments are spread more than {MAX_EXPANDED_FIELDS} times"
        ));
    }
    if depth > FRAGMENT_DEPTH {
        return Err(format!(
            "Fragment cycle depth is greater than {FRAGMENT_DEPTH}"
        ));
    }
    if !visited.insert(&fragment.name) {
        return Err("Found a cycle between fragments".to_string());
    }
    check_cycles_in(
        &fragment.selection_set,
        visited,
        fragments,
        depth + 1,
        visits,
    )?;
    visited.remove(fragment.name.as_str());
    Ok(())
}

fn check_cycles_in<'b>(
    set: &'b SelectionSet<'_, String>,
    visited: &mut HashSet<&'b str>,
    fragments: &'b Fragments,
    depth: u32,
    visits: &mut usize,
) -> Result<(), String> {
    if depth > FRAGMENT_DEPTH {
        return Err(format!(
            "Fragment cycle depth is greater than {FRAGMENT_DEPTH}"
        ));
    }
    for item in &set.items {
        match item {
            Selection::Field(f) => {
                check_cycles_in(&f.selection_set, visited, fragments, depth + 1, visits)?
            }
            Selection::FragmentSpread(s) => {
                if let Some(f) = fragments.iter().find(|f| f.name == s.fragment_name) {
                    check_cycles(f, visited, fragments, depth + 1, visits)?;
                }
            }
            Selection::InlineFragment(i) => {
                check_cycles_in(&i.selection_set, visited, fragments, depth + 1, visits)?
            }
        }
    }
    Ok(())
}

/// The fields `set` selects on the type `type_name`.
pub fn fields<'a>(
    set: &SelectionSet<'a, String>,
    fragments: &Fragments<'a>,
    type_name: &str,
    vars: &Variables,
) -> Result<Vec<Field<'a, String>>, String> {
    pgrx::check_for_interrupts!();
    let mut out = vec![];
    for item in &set.items {
        if skipped(item, vars)? {
            continue;
        }
        match item {
            Selection::Field(f) => {
                let n = vars.expanded.get() + 1;
                if n > MAX_EXPANDED_FIELDS {
                    return Err(format!(
                        "The query selects more than {MAX_EXPANDED_FIELDS} fields"
                    ));
                }
                vars.expanded.set(n);
                out.push(f.clone());
            }
            Selection::FragmentSpread(spread) => {
                let fragment = fragments
                    .iter()
                    .find(|f| {
                        f.name == spread.fragment_name
                            && matches!(&f.type_condition, TypeCondition::On(t) if t == type_name)
                    })
                    .ok_or_else(|| {
                        format!(
                            "no fragment named {} on type {type_name}",
                            spread.fragment_name
                        )
                    })?;
                out.extend(fields(&fragment.selection_set, fragments, type_name, vars)?);
            }
            Selection::InlineFragment(inline) => {
                let applies = match &inline.type_condition {
                    Some(TypeCondition::On(t)) => t == type_name,
                    None => true,
                };
                if applies {
                    out.extend(fields(&inline.selection_set, fragments, type_name, vars)?);
                }
            }
        }
    }
    merge(out)
}

/// Fields with the same response key as one, their selections combined.
fn merge<'a>(fields: Vec<Field<'a, String>>) -> Result<Vec<Field<'a, String>>, String> {
    let mut merged: IndexMap<String, Field<'a, String>> = IndexMap::new();
    for f in fields {
        match merged.get_mut(key(&f)) {
            Some(existing) => {
                if existing.name != f.name {
                    return Err(format!(
                        "Fields `{}` and `{}` are different",
                        f.name, existing.name
                    ));
                }
                if !same_arguments(&existing.arguments, &f.arguments) {
                    return Err(format!(
                        "Two fields named `{}` have different arguments",
                        f.name
                    ));
                }
                existing.selection_set.items.extend(f.selection_set.items);
            }
            None => {
                merged.insert(key(&f).to_string(), f);
            }
        }
    }
    Ok(merged.into_values().collect())
}

fn same_arguments<'x>(
    a: &[(String, Value<'x, String>)],
    b: &[(String, Value<'x, String>)],
) -> bool {
    a.len() == b.len()
        && b.iter()
            .all(|(name, v)| a.iter().any(|(n, w)| n == name && w == v))
}

/// Whether `@skip` or `@include` leaves the selection out.
fn skipped(item: &Selection<'_, String>, vars: &Variables) -> Result<bool, String> {
    let directives = match item {
        Selection::Field(f) => &f.directives,
        Selection::FragmentSpread(s) => &s.directives,
        Selection::InlineFragment(i) => &i.directives,
    };
    for d in directives {
        let skip_when = match d.name.as_str() {
            "skip" => true,
            "include" => false,
            other => return Err(format!("Unknown directive {other}")),
        };
        if d.arguments.len() != 1 {
            return Err(format!("Incorrect arguments to directive @{}", d.name));
        }
        let (arg, value) = &d.arguments[0];
        if arg != "if" {
            return Err(format!("Unknown argument to @{}: {arg}", d.name));
        }
        let condition = match value {
            Value::Boolean(b) => Some(*b),
            Value::Variable(_) => match Val::from_ast(value, vars)? {
                Val::Bool(b) => Some(b),
                _ => {
                    return Err(format!(
                        "Value for \"if\" in @{} directive is required",
                        d.name
                    ));
                }
            },
            _ => None,
        };
        if condition == Some(skip_when) {
            return Ok(true);
        }
    }
    Ok(false)
}
