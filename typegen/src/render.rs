//! Renders the `Database` type (Tables, Views, Functions, Enums, CompositeTypes with Row, Insert,
//! Update and Relationships) and its helper types in the shape `supabase gen types typescript`
//! prints, formatted the way prettier would lay it out.

use super::introspect::{Catalog, Column, Function, Relation};
use super::types::{Ctx, key, q};
use std::fmt::Write;

/// The PostgREST version supabase-js selects its typings for.
const POSTGREST_VERSION: &str = "14.1";

/// Writes lines with indentation.
struct Out {
    text: String,
    indent: usize,
}

impl Out {
    fn line(&mut self, s: &str) {
        if s.is_empty() {
            self.text.push('\n');
        } else {
            let _ = writeln!(self.text, "{}{s}", "  ".repeat(self.indent));
        }
    }
    fn open(&mut self, s: &str) {
        self.line(s);
        self.indent += 1;
    }
    fn close(&mut self, s: &str) {
        self.indent -= 1;
        self.line(s);
    }
    fn never(&mut self, name: &str) {
        self.open(&format!("{name}: {{"));
        self.line("[_ in never]: never");
        self.close("}");
    }
}

fn sorted_columns(r: &Relation) -> Vec<&Column> {
    let mut cols: Vec<&Column> = r.columns.iter().collect();
    cols.sort_by(|a, b| a.name.cmp(&b.name));
    cols
}

fn relationships(ctx: &Ctx, out: &mut Out, r: &Relation) {
    let mut rels: Vec<_> = ctx
        .cat
        .relationships
        .iter()
        .filter(|x| x.schema == r.schema && x.referenced_schema == r.schema && x.relation == r.name)
        .collect();
    rels.sort_by(|a, b| {
        (&a.name, &a.referenced_relation, &a.referenced_columns).cmp(&(
            &b.name,
            &b.referenced_relation,
            &b.referenced_columns,
        ))
    });
    if rels.is_empty() {
        out.line("Relationships: []");
        return;
    }
    out.open("Relationships: [");
    for x in rels {
        let list = |v: &[String]| {
            format!(
                "[{}]",
                v.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ")
            )
        };
        out.open("{");
        out.line(&format!("foreignKeyName: {}", q(&x.name)));
        out.line(&format!("columns: {}", list(&x.columns)));
        out.line(&format!("isOneToOne: {}", x.one_to_one));
        out.line(&format!(
            "referencedRelation: {}",
            q(&x.referenced_relation)
        ));
        out.line(&format!(
            "referencedColumns: {}",
            list(&x.referenced_columns)
        ));
        out.close("},");
    }
    out.close("]");
}

fn table(ctx: &Ctx, out: &mut Out, r: &Relation, computed: &[&Function]) {
    let cols = sorted_columns(r);
    let null = |c: &Column| if c.nullable { " | null" } else { "" };
    out.open(&format!("{}: {{", key(&r.name)));
    out.open("Row: {");
    for c in &cols {
        out.line(&format!(
            "{}: {}{}",
            key(&c.name),
            ctx.ts(&c.type_name),
            null(c)
        ));
    }
    for f in computed {
        out.line(&format!(
            "{}: {} | null",
            key(&f.name),
            ctx.ts(&f.return_type)
        ));
    }
    out.close("}");
    for (group, insert) in [("Insert", true), ("Update", false)] {
        out.open(&format!("{group}: {{"));
        for c in &cols {
            if c.identity.as_deref() == Some("a") || c.generated {
                out.line(&format!("{}?: never", key(&c.name)));
                continue;
            }
            let optional = !insert || c.nullable || c.identity.is_some() || c.has_default;
            out.line(&format!(
                "{}{}: {}{}",
                key(&c.name),
                if optional { "?" } else { "" },
                ctx.ts(&c.type_name),
                null(c)
            ));
        }
        out.close("}");
    }
    relationships(ctx, out, r);
    out.close("}");
}

fn view(ctx: &Ctx, out: &mut Out, r: &Relation) {
    let cols = sorted_columns(r);
    out.open(&format!("{}: {{", key(&r.name)));
    out.open("Row: {");
    for c in &cols {
        // A view's columns may always be null, whatever the table under it says.
        out.line(&format!(
            "{}: {} | null",
            key(&c.name),
            ctx.ts(&c.type_name)
        ));
    }
    out.close("}");
    if r.updatable {
        for group in ["Insert", "Update"] {
            out.open(&format!("{group}: {{"));
            for c in &cols {
                if c.updatable {
                    out.line(&format!(
                        "{}?: {} | null",
                        key(&c.name),
                        ctx.ts(&c.type_name)
                    ));
                } else {
                    out.line(&format!("{}?: never", key(&c.name)));
                }
            }
            out.close("}");
        }
    }
    relationships(ctx, out, r);
    out.close("}");
}

fn function_returns(ctx: &Ctx, f: &Function) -> Vec<String> {
    let table_cols: Vec<_> = f.args.iter().filter(|a| a.mode == "t").collect();
    let body: Vec<String> = if !table_cols.is_empty() {
        table_cols
            .iter()
            .map(|a| format!("{}: {}", key(&a.name), ctx.ts(&a.type_name)))
            .collect()
    } else if let Some(r) = ctx
        .cat
        .relations
        .iter()
        .find(|r| r.name == f.return_type && r.schema == f.return_schema)
    {
        sorted_columns(r)
            .iter()
            .map(|c| {
                let null = if c.nullable || r.is_view() {
                    " | null"
                } else {
                    ""
                };
                format!("{}: {}{null}", key(&c.name), ctx.ts(&c.type_name))
            })
            .collect()
    } else {
        let set = if f.returns_set { "[]" } else { "" };
        return vec![format!("{}{set}", ctx.ts(&f.return_type))];
    };
    let mut lines = vec!["{".to_string()];
    lines.extend(body.into_iter().map(|l| format!("  {l}")));
    lines.push(if f.returns_set {
        "}[]".into()
    } else {
        "}".into()
    });
    lines
}

fn functions(ctx: &Ctx, out: &mut Out, schema: &str) {
    let mut fns: Vec<&Function> = ctx
        .cat
        .functions
        .iter()
        .filter(|f| f.schema == schema)
        .filter(|f| !f.args.iter().any(|a| a.pseudo && a.mode != "t"))
        .filter(|f| {
            // PostgREST calls functions with named arguments, or with one unnamed argument.
            let ins: Vec<_> = f.in_args().collect();
            !ins.iter().any(|a| a.name.is_empty()) || ins.len() == 1
        })
        .collect();
    fns.sort_by(|a, b| a.name.cmp(&b.name));
    if fns.is_empty() {
        out.never("Functions");
        return;
    }
    out.open("Functions: {");
    let mut i = 0;
    while i < fns.len() {
        let name = &fns[i].name;
        let group: Vec<&Function> = fns[i..]
            .iter()
            .take_while(|f| &f.name == name)
            .copied()
            .collect();
        i += group.len();
        let args: Vec<String> = group
            .iter()
            .map(|f| {
                let ins: Vec<_> = f.in_args().collect();
                if ins.is_empty() {
                    "never".to_string()
                } else {
                    let fields: Vec<String> = ins
                        .iter()
                        .map(|a| {
                            format!(
                                "{}{}: {}",
                                key(&a.name),
                                if a.has_default { "?" } else { "" },
                                ctx.ts(&a.type_name)
                            )
                        })
                        .collect();
                    format!("{{ {} }}", fields.join("; "))
                }
            })
            .collect();
        let returns = function_returns(ctx, group[0]);
        let args = args.join(" | ");
        if returns.len() == 1 {
            let one = format!("{}: {{ Args: {args}; Returns: {} }}", key(name), returns[0]);
            if one.len() + 2 * out.indent <= 80 {
                out.line(&one);
                continue;
            }
        }
        out.open(&format!("{}: {{", key(name)));
        out.line(&format!("Args: {args}"));
        out.line(&format!("Returns: {}", returns[0]));
        if returns.len() > 1 {
            out.indent += 1;
            for l in &returns[1..returns.len() - 1] {
                out.line(l.trim_start_matches("  "));
            }
            out.indent -= 1;
            out.line(&returns[returns.len() - 1]);
        }
        out.close("}");
    }
    out.close("}");
}

pub fn render(cat: &Catalog, schemas: &[String]) -> String {
    let mut schemas = schemas.to_vec();
    schemas.sort();
    schemas.dedup();
    let ctx = Ctx {
        cat,
        schemas: &schemas,
    };
    let mut out = Out {
        text: String::new(),
        indent: 0,
    };
    out.line("export type Json =");
    for t in [
        "string",
        "number",
        "boolean",
        "null",
        "{ [key: string]: Json | undefined }",
        "Json[]",
    ] {
        out.line(&format!("  | {t}"));
    }
    out.line("");
    out.open("export type Database = {");
    out.line("// Allows to automatically instantiate createClient with right options");
    out.line("// instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)");
    out.open("__InternalSupabase: {");
    out.line(&format!("PostgrestVersion: {}", q(POSTGREST_VERSION)));
    out.close("}");
    for schema in &schemas {
        out.open(&format!("{}: {{", key(schema)));
        let mut rels: Vec<&Relation> = cat
            .relations
            .iter()
            .filter(|r| &r.schema == schema)
            .collect();
        rels.sort_by(|a, b| a.name.cmp(&b.name));
        let tables: Vec<_> = rels.iter().filter(|r| !r.is_view()).collect();
        let views: Vec<_> = rels.iter().filter(|r| r.is_view()).collect();
        if tables.is_empty() {
            out.never("Tables");
        } else {
            out.open("Tables: {");
            for r in tables {
                let mut computed: Vec<&Function> = cat
                    .functions
                    .iter()
                    .filter(|f| &f.schema == schema)
                    .filter(|f| {
                        let ins: Vec<_> = f.in_args().collect();
                        ins.len() == 1 && ins[0].type_name == r.name
                    })
                    .collect();
                computed.sort_by(|a, b| a.name.cmp(&b.name));
                table(&ctx, &mut out, r, &computed);
            }
            out.close("}");
        }
        if views.is_empty() {
            out.never("Views");
        } else {
            out.open("Views: {");
            for r in views {
                view(&ctx, &mut out, r);
            }
            out.close("}");
        }
        functions(&ctx, &mut out, schema);
        let mut enums: Vec<_> = cat
            .types
            .iter()
            .filter(|t| &t.schema == schema && !t.enums.is_empty())
            .collect();
        enums.sort_by(|a, b| a.name.cmp(&b.name));
        if enums.is_empty() {
            out.never("Enums");
        } else {
            out.open("Enums: {");
            for e in &enums {
                let values = e.enums.iter().map(|v| q(v)).collect::<Vec<_>>();
                let one = format!("{}: {}", key(&e.name), values.join(" | "));
                if one.len() + 2 * out.indent <= 80 {
                    out.line(&one);
                } else {
                    out.open(&format!("{}:", key(&e.name)));
                    for v in &values {
                        out.line(&format!("| {v}"));
                    }
                    out.indent -= 1;
                }
            }
            out.close("}");
        }
        let mut composites: Vec<_> = cat
            .types
            .iter()
            .filter(|t| &t.schema == schema && !t.attributes.is_empty())
            .collect();
        composites.sort_by(|a, b| a.name.cmp(&b.name));
        if composites.is_empty() {
            out.never("CompositeTypes");
        } else {
            out.open("CompositeTypes: {");
            for t in composites {
                out.open(&format!("{}: {{", key(&t.name)));
                for a in &t.attributes {
                    out.line(&format!(
                        "{}: {} | null",
                        key(&a.name),
                        ctx.ts(&a.type_name)
                    ));
                }
                out.close("}");
            }
            out.close("}");
        }
        out.close("}");
    }
    out.close("}");
    out.text.push_str(HELPERS);
    out.line("");
    out.open("export const Constants = {");
    for schema in &schemas {
        out.open(&format!("{}: {{", key(schema)));
        let mut enums: Vec<_> = cat
            .types
            .iter()
            .filter(|t| &t.schema == schema && !t.enums.is_empty())
            .collect();
        enums.sort_by(|a, b| a.name.cmp(&b.name));
        if enums.is_empty() {
            out.line("Enums: {},");
        } else {
            out.open("Enums: {");
            for e in enums {
                let values = e.enums.iter().map(|v| q(v)).collect::<Vec<_>>();
                out.line(&format!("{}: [{}],", key(&e.name), values.join(", ")));
            }
            out.close("},");
        }
        out.close("},");
    }
    out.close("} as const");
    out.text
}

/// The generic helpers apps use as `Tables<"products">`, `TablesInsert<…>`, `Enums<…>`.
const HELPERS: &str = include_str!("helpers.ts");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::introspect::Catalog;

    #[test]
    fn rows_inserts_relationships_functions_and_enums() {
        let cat: Catalog = serde_json::from_value(serde_json::json!({
          "relations": [
            {"schema": "public", "name": "notes", "kind": "r", "updatable": true, "columns": [
              {"name": "id", "type": "int8", "nullable": false, "has_default": false, "identity": "a", "generated": false, "updatable": true},
              {"name": "body", "type": "text", "nullable": true, "has_default": false, "identity": null, "generated": false, "updatable": true},
              {"name": "owner", "type": "uuid", "nullable": false, "has_default": true, "identity": null, "generated": false, "updatable": true},
              {"name": "tags", "type": "_text", "nullable": false, "has_default": false, "identity": null, "generated": false, "updatable": true},
              {"name": "mood", "type": "mood", "nullable": true, "has_default": false, "identity": null, "generated": false, "updatable": true},
              {"name": "folder_id", "type": "int4", "nullable": true, "has_default": false, "identity": null, "generated": false, "updatable": true}
            ]},
            {"schema": "public", "name": "folders", "kind": "r", "updatable": true, "columns": [
              {"name": "id", "type": "int4", "nullable": false, "has_default": true, "identity": "d", "generated": false, "updatable": true}
            ]}
          ],
          "relationships": [{"name": "notes_folder_id_fkey", "schema": "public", "relation": "notes", "columns": ["folder_id"],
            "one_to_one": false, "referenced_schema": "public", "referenced_relation": "folders", "referenced_columns": ["id"]}],
          "functions": [
            {"schema": "public", "name": "count_notes", "returns_set": false, "return_type": "int8", "return_schema": "pg_catalog", "args": []},
            {"schema": "public", "name": "search", "returns_set": true, "return_type": "notes", "return_schema": "public",
             "args": [{"name": "q", "mode": "i", "type": "text", "pseudo": false, "has_default": false},
                      {"name": "lim", "mode": "i", "type": "int4", "pseudo": false, "has_default": true}]}
          ],
          "types": [{"schema": "public", "name": "mood", "enums": ["happy", "sad"], "attributes": []}]
        }))
        .unwrap();
        let ts = render(&cat, &["public".to_string()]);
        for expected in [
            "      notes: {\n        Row: {\n          body: string | null\n          folder_id: number | null\n          id: number\n          mood: Database[\"public\"][\"Enums\"][\"mood\"] | null\n          owner: string\n          tags: string[]\n        }",
            "        Insert: {\n          body?: string | null\n          folder_id?: number | null\n          id?: never\n          mood?: Database[\"public\"][\"Enums\"][\"mood\"] | null\n          owner?: string\n          tags: string[]\n        }",
            "            foreignKeyName: \"notes_folder_id_fkey\"\n            columns: [\"folder_id\"]\n            isOneToOne: false\n            referencedRelation: \"folders\"\n            referencedColumns: [\"id\"]\n          },",
            "      count_notes: { Args: never; Returns: number }",
            "      search: {\n        Args: { q: string; lim?: number }\n        Returns: {\n          body: string | null\n",
            "        }[]\n      }",
            "      mood: \"happy\" | \"sad\"",
            "    Enums: {\n      mood: [\"happy\", \"sad\"],\n    },",
            "    Views: {\n      [_ in never]: never\n    }",
            "export type Tables<",
        ] {
            assert!(
                ts.contains(expected),
                "missing:\n{expected}\n---- in ----\n{ts}"
            );
        }
    }
}
