use super::*;

#[test]
fn nesting_is_bounded_before_the_grammar_recurses() {
    let deep = |n: usize| format!("{}id.is.null{}", "or(".repeat(n), ")".repeat(n));
    assert!(parse_logic_tree(Logic::Or, false, &format!("({})", deep(MAX_NESTING - 1))).is_ok());
    let e = parse_logic_tree(Logic::Or, false, &format!("({})", deep(2500))).unwrap_err();
    // The 21st parenthesis: the leading one, then 19 more "or(" and the "(" of the 20th.
    assert_eq!(e.column, 1 + 19 * 3 + 3);
    assert!(
        e.details.contains("nesting deeper than 20 levels"),
        "{}",
        e.details
    );
    assert!(e.input.len() < 80);
    let embeds = format!("{}id{}", "categories(".repeat(5000), ")".repeat(5000));
    let e = parse_select(&embeds).unwrap_err();
    assert_eq!(e.what, "select parameter");
    // Parentheses inside quoted values do not count.
    let quoted = format!("(name.eq.\"{}\")", "(".repeat(100));
    assert!(parse_logic_tree(Logic::Or, false, &quoted).is_ok());
}

fn col(n: &str) -> SelectItem {
    SelectItem::Column {
        field: Field::simple(n),
        alias: None,
        cast: None,
        aggregate: None,
    }
}

#[test]
fn select_columns_aliases_casts_and_json() {
    assert_eq!(parse_select("*").unwrap(), vec![SelectItem::Star]);
    assert_eq!(
        parse_select("id,name").unwrap(),
        vec![col("id"), col("name")]
    );
    assert_eq!(
        parse_select("price:base_price::text").unwrap(),
        vec![SelectItem::Column {
            field: Field::simple("base_price"),
            alias: Some("price".into()),
            cast: Some("text".into()),
            aggregate: None,
        }]
    );
    let s = parse_select("data->a->>b,x:data->0").unwrap();
    assert_eq!(
        s[0],
        SelectItem::Column {
            field: Field {
                name: "data".into(),
                json_path: vec![
                    JsonStep::Arrow(JsonKey::Name("a".into())),
                    JsonStep::DoubleArrow(JsonKey::Name("b".into()))
                ]
            },
            alias: None,
            cast: None,
            aggregate: None,
        }
    );
    assert!(
        matches!(&s[1], SelectItem::Column { field, .. } if field.json_path == vec![JsonStep::Arrow(JsonKey::Index(0))])
    );
    assert_eq!(parse_select("\"my col\"").unwrap(), vec![col("my col")]);
}

#[test]
fn select_embeds() {
    let s = parse_select(
        "*,category:categories!products_category_id_fkey!inner(id,name),product_categories()",
    )
    .unwrap();
    assert_eq!(s.len(), 3);
    match &s[1] {
        SelectItem::Embed(e) => {
            assert_eq!(e.alias.as_deref(), Some("category"));
            assert_eq!(e.relation, "categories");
            assert_eq!(e.hint.as_deref(), Some("products_category_id_fkey"));
            assert!(e.inner);
            assert_eq!(e.select, vec![col("id"), col("name")]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&s[2], SelectItem::Embed(e) if e.select.is_empty()));
    let nested = parse_select("id,products(id,categories(slug))").unwrap();
    assert!(
        matches!(&nested[1], SelectItem::Embed(e) if matches!(&e.select[1], SelectItem::Embed(_)))
    );
}

#[test]
fn select_errors_point_at_the_problem() {
    let e = parse_select("id,").unwrap_err();
    assert_eq!(e.column, 4);
    assert_eq!(
        e.to_string(),
        "\"failed to parse select parameter (id,)\" (line 1, column 4)"
    );
    assert_eq!(
        e.details,
        "unexpected end of input expecting field name (* or [a..z0..9_$])"
    );
    let e = parse_select("id,name)").unwrap_err();
    assert_eq!(e.column, 8);
    assert!(e.details.contains("unexpected \")\""));
    assert!(parse_select("categories(id").is_err());
}

#[test]
fn filters() {
    let f = parse_filter("id", "eq.5").unwrap();
    assert_eq!(f.op, Operation::Compare(CmpOp::Eq, "5".into()));
    let f = parse_filter("name", "ilike.%foo bar, (baz)%").unwrap();
    assert_eq!(
        f.op,
        Operation::Compare(CmpOp::Ilike, "%foo bar, (baz)%".into())
    );
    let f = parse_filter("c", "not.is.null").unwrap();
    assert!(f.negate);
    assert_eq!(f.op, Operation::Is(IsValue::Null));
    let f = parse_filter("id", "in.(x,\"y,z\",3)").unwrap();
    assert_eq!(
        f.op,
        Operation::In(vec!["x".into(), "y,z".into(), "3".into()])
    );
    assert_eq!(
        parse_filter("id", "in.()").unwrap().op,
        Operation::In(vec![])
    );
    let f = parse_filter("name", "like(any).{a*,b*}").unwrap();
    assert_eq!(
        f.op,
        Operation::Quantified(CmpOp::Like, Quantifier::Any, vec!["a*".into(), "b*".into()])
    );
    let f = parse_filter("tags", "cs.{a,b}").unwrap();
    assert_eq!(f.op, Operation::Set(SetOp::Contains, "{a,b}".into()));
    let f = parse_filter("doc", "fts(english).cat & dog").unwrap();
    assert_eq!(
        f.op,
        Operation::Fts {
            kind: FtsKind::Fts,
            language: Some("english".into()),
            query: "cat & dog".into()
        }
    );
    assert_eq!(
        parse_filter("doc", "wfts.cat").unwrap().op,
        Operation::Fts {
            kind: FtsKind::Websearch,
            language: None,
            query: "cat".into()
        }
    );
    assert_eq!(
        parse_filter("n", "gte.3").unwrap().op,
        Operation::Compare(CmpOp::Gte, "3".into())
    );
    assert_eq!(
        parse_filter("n", "isdistinct.3").unwrap().op,
        Operation::IsDistinct("3".into())
    );
    assert_eq!(
        parse_filter("r", "adj.[1,2)").unwrap().op,
        Operation::Set(SetOp::Adjacent, "[1,2)".into())
    );
    assert_eq!(
        parse_filter("r", "nxl.[1,2)").unwrap().op,
        Operation::Set(SetOp::NotExtendLeft, "[1,2)".into())
    );
    let f = parse_filter("data->>a", "eq.1").unwrap();
    assert_eq!(f.field.json_path.len(), 1);
}

#[test]
fn filter_errors() {
    let e = parse_filter("id", "noop.0").unwrap_err();
    assert_eq!(
        e.to_string(),
        "\"failed to parse filter (noop.0)\" (line 1, column 1)"
    );
    assert!(e.details.starts_with("unexpected \"n\" expecting operator"));
    assert!(parse_filter("id", "is.maybe").is_err());
    assert!(parse_filter("id", "in.(1,2").is_err());
    assert!(parse_filter("id", "eq").is_err());
}

#[test]
fn logic_trees() {
    let t = parse_logic_tree(Logic::Or, false, "(a.eq.1,b.gt.2)").unwrap();
    let Condition::Tree {
        logic, children, ..
    } = t
    else {
        panic!()
    };
    assert_eq!(logic, Logic::Or);
    assert_eq!(children.len(), 2);
    let t = parse_logic_tree(
        Logic::And,
        false,
        "(name.eq.\"a,b)\",id.in.(1,2),not.or(c.is.null,d.like.*x*),r.cs.{1,2})",
    )
    .unwrap();
    let Condition::Tree { children, .. } = t else {
        panic!()
    };
    assert_eq!(children.len(), 4);
    assert!(
        matches!(&children[0], Condition::Filter(f) if f.op == Operation::Compare(CmpOp::Eq, "a,b)".into()))
    );
    assert!(
        matches!(&children[2], Condition::Tree { logic: Logic::Or, negate: true, children } if children.len() == 2)
    );
    assert!(
        matches!(&children[3], Condition::Filter(f) if f.op == Operation::Set(SetOp::Contains, "{1,2}".into()))
    );
    let e = parse_logic_tree(Logic::Or, false, "(a.eq.1,").unwrap_err();
    assert_eq!(e.column, 9);
    assert!(parse_logic_tree(Logic::Or, false, "a.eq.1").is_err());
}

#[test]
fn order_terms() {
    let o = parse_order("order_by.desc.nullsfirst,name.asc,id").unwrap();
    assert_eq!(o.len(), 3);
    assert_eq!(o[0].direction, Some(Direction::Desc));
    assert_eq!(o[0].nulls, Some(Nulls::First));
    assert_eq!(o[2].direction, None);
    assert!(parse_order("name.sideways").is_err());
    assert_eq!(
        parse_name_list("columns", "\"a\",\"b\"").unwrap(),
        vec!["a", "b"]
    );
}

#[test]
fn realtime_filter_lists_use_the_same_grammar() {
    let f = parse_filter_list(r#"id=gt.0,name=in.("a,b",c),note=not.is.null,q=eq."say \"hi\"""#)
        .unwrap();
    assert_eq!(f.len(), 4);
    assert_eq!(f[0].field.name, "id");
    assert_eq!(f[0].op, Operation::Compare(CmpOp::Gt, "0".into()));
    assert_eq!(f[1].op, Operation::In(vec!["a,b".into(), "c".into()]));
    assert!(f[2].negate && f[2].op == Operation::Is(IsValue::Null));
    assert_eq!(f[3].op, Operation::Compare(CmpOp::Eq, "say \"hi\"".into()));
    assert!(parse_filter_list("").unwrap().is_empty());
    for bad in [
        "id",
        "id=eq",
        "id=near.1",
        "=eq.1",
        "id=in.1",
        "a=eq.(1",
        "id=eq.1,",
    ] {
        assert!(parse_filter_list(bad).is_err(), "{bad}");
    }
}
