//! The rule of pages and conditions, case by case: conditions refused at save, and
//! which fields and pages answers show.

use super::super::fields::{FieldInput, FieldOption, build_fields};
use super::*;
use serde_json::json;

fn input(kind: &str, r: &str) -> FieldInput {
    FieldInput {
        kind: kind.into(),
        label: format!("Label {r}"),
        r#ref: Some(r.into()),
        ..FieldInput::default()
    }
}

fn when(field: &str, op: &str, value: Option<Value>) -> ConditionInput {
    ConditionInput {
        field: field.into(),
        op: op.into(),
        value,
    }
}

fn choice(r: &str) -> FieldInput {
    let mut f = input("single_choice", r);
    f.options = ["Yes", "No"]
        .iter()
        .map(|l| FieldOption {
            id: l.to_lowercase(),
            label: (*l).into(),
        })
        .collect();
    f
}

fn with(mut f: FieldInput, conditions: Vec<ConditionInput>) -> FieldInput {
    f.show_if = conditions;
    f
}

fn refused(fields: Vec<FieldInput>, needle: &str) {
    let err = build_fields(fields, &[]).expect_err(needle).to_string();
    assert!(err.contains(needle), "{err} lacks {needle}");
}

#[test]
fn conditions_resolve_by_ref_label_and_id() {
    let fields = build_fields(
        vec![
            choice("car"),
            with(
                input("short_text", "model"),
                vec![when("car", "equals", Some(json!("Yes")))],
            ),
        ],
        &[],
    )
    .expect("valid");
    assert_eq!(
        fields[1].show_if,
        vec![Condition {
            field: fields[0].id,
            op: Op::Equals,
            value: Some(json!("yes")),
        }]
    );
}

#[test]
fn bad_logic_is_refused_at_save() {
    refused(
        vec![
            with(choice("a"), vec![when("b", "answered", None)]),
            input("short_text", "b"),
        ],
        "fields[0].show_if[0].field",
    );
    refused(
        vec![with(choice("a"), vec![when("a", "answered", None)])],
        "comes before",
    );
    refused(
        vec![
            choice("a"),
            with(input("email", "b"), vec![when("zz", "answered", None)]),
        ],
        "not a field of this form",
    );
    refused(
        vec![
            choice("a"),
            with(
                input("email", "b"),
                vec![when("a", "equals", Some(json!("maybe")))],
            ),
        ],
        "fields[1].show_if[0].value",
    );
    refused(
        vec![
            choice("a"),
            with(
                input("email", "b"),
                vec![when("a", "greater_than", Some(json!(1)))],
            ),
        ],
        "fields[1].show_if[0].op",
    );
    refused(
        vec![
            choice("a"),
            with(
                input("email", "b"),
                vec![when("a", "bigger", Some(json!(1)))],
            ),
        ],
        "must be one of",
    );
    let mut stars = input("rating", "r");
    stars.max = Some(json!(5));
    refused(
        vec![
            stars.clone(),
            with(
                input("email", "b"),
                vec![when("r", "equals", Some(json!(6)))],
            ),
        ],
        "from 1 to 5",
    );
    refused(
        vec![
            stars.clone(),
            with(
                input("email", "b"),
                vec![when("r", "greater_than", Some(json!(5)))],
            ),
        ],
        "can never all hold",
    );
    refused(
        vec![
            choice("a"),
            with(
                input("email", "b"),
                vec![
                    when("a", "equals", Some(json!("yes"))),
                    when("a", "equals", Some(json!("no"))),
                ],
            ),
        ],
        "can never all hold",
    );
    refused(
        vec![
            input("number", "n"),
            with(
                input("email", "b"),
                vec![
                    when("n", "greater_than", Some(json!(10))),
                    when("n", "less_than", Some(json!(5))),
                ],
            ),
        ],
        "can never all hold",
    );
    refused(
        vec![
            input("date", "d"),
            with(
                input("email", "b"),
                vec![
                    when("d", "greater_than", Some(json!("2026-01-01"))),
                    when("d", "less_than", Some(json!("2026-01-02"))),
                ],
            ),
        ],
        "can never all hold",
    );
    refused(
        vec![
            input("short_text", "t"),
            with(
                input("email", "b"),
                vec![when("t", "answered", None), when("t", "not_answered", None)],
            ),
        ],
        "can never all hold",
    );
    let mut consent = input("checkbox", "c");
    consent.required = true;
    refused(
        vec![
            consent,
            with(
                input("email", "b"),
                vec![when("c", "equals", Some(json!(false)))],
            ),
        ],
        "can never all hold",
    );
    // Satisfiable ranges and lists pass.
    assert!(
        build_fields(
            vec![
                input("date", "d"),
                with(
                    input("email", "b"),
                    vec![
                        when("d", "greater_than", Some(json!("2026-01-01"))),
                        when("d", "less_than", Some(json!("2026-01-03"))),
                    ],
                ),
            ],
            &[]
        )
        .is_ok()
    );
}

fn answers(fields: &[Field], values: &[(usize, Value)]) -> Map<String, Value> {
    values
        .iter()
        .map(|(i, v)| (fields[*i].id.to_string(), v.clone()))
        .collect()
}

fn shown(fields: &[Field], given: &Map<String, Value>) -> Vec<bool> {
    let mut seen = Visibility::new(fields);
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let s = seen.shown(i, f);
            if s && let Some(a) = given.get(&f.id.to_string()) {
                seen.answered(f, a);
            }
            s
        })
        .collect()
}

#[test]
fn the_matrix_of_operators() {
    let mut stars = input("rating", "r");
    stars.max = Some(json!(5));
    let mut multi = input("multiple_choice", "m");
    multi.options = ["Red", "Green", "Blue"]
        .iter()
        .map(|l| FieldOption {
            id: l.to_lowercase(),
            label: (*l).into(),
        })
        .collect();
    let base = vec![
        choice("a"),
        input("short_text", "t"),
        stars,
        input("date", "d"),
        multi,
        input("number", "n"),
    ];
    let case = |cond: ConditionInput, given: &[(usize, Value)], expect: bool| {
        let mut inputs = base.clone();
        inputs.push(with(input("email", "x"), vec![cond.clone()]));
        let fields = build_fields(inputs, &[]).expect("valid");
        let a = answers(&fields, given);
        assert_eq!(shown(&fields, &a)[6], expect, "{cond:?} with {given:?}");
    };
    case(
        when("a", "equals", Some(json!("yes"))),
        &[(0, json!("yes"))],
        true,
    );
    case(
        when("a", "equals", Some(json!("yes"))),
        &[(0, json!("no"))],
        false,
    );
    case(when("a", "equals", Some(json!("yes"))), &[], false);
    case(
        when("a", "not_equals", Some(json!("yes"))),
        &[(0, json!("no"))],
        true,
    );
    case(when("a", "not_equals", Some(json!("yes"))), &[], true);
    case(
        when("a", "not_equals", Some(json!("yes"))),
        &[(0, json!("yes"))],
        false,
    );
    case(
        when("a", "any_of", Some(json!(["No", "yes"]))),
        &[(0, json!("no"))],
        true,
    );
    case(when("a", "answered", None), &[(0, json!("no"))], true);
    case(when("a", "answered", None), &[], false);
    case(when("a", "not_answered", None), &[], true);
    case(
        when("t", "contains", Some(json!("LOVE"))),
        &[(1, json!("Ada Lovelace"))],
        true,
    );
    case(
        when("t", "contains", Some(json!("babbage"))),
        &[(1, json!("Ada"))],
        false,
    );
    case(
        when("t", "equals", Some(json!("ada"))),
        &[(1, json!(" Ada "))],
        true,
    );
    case(
        when("r", "greater_than", Some(json!(3))),
        &[(2, json!(4))],
        true,
    );
    case(
        when("r", "greater_than", Some(json!(3))),
        &[(2, json!(3))],
        false,
    );
    case(when("r", "less_than", Some(json!(3))), &[], false);
    case(
        when("r", "any_of", Some(json!([1, 2]))),
        &[(2, json!(2))],
        true,
    );
    case(
        when("d", "greater_than", Some(json!("2026-01-01"))),
        &[(3, json!("2026-01-02"))],
        true,
    );
    case(
        when("d", "less_than", Some(json!("2026-01-01"))),
        &[(3, json!("2026-01-02"))],
        false,
    );
    case(
        when("m", "contains", Some(json!("Green"))),
        &[(4, json!(["red", "green"]))],
        true,
    );
    case(
        when("m", "contains", Some(json!("blue"))),
        &[(4, json!(["red"]))],
        false,
    );
    case(
        when("m", "any_of", Some(json!(["blue", "red"]))),
        &[(4, json!(["red"]))],
        true,
    );
    case(
        when("n", "greater_than", Some(json!(2.5))),
        &[(5, json!(3))],
        true,
    );
    case(
        when("n", "equals", Some(json!(3))),
        &[(5, json!(3.0))],
        true,
    );
}

#[test]
fn a_hidden_page_hides_its_fields_and_what_hangs_on_them() {
    let fields = build_fields(
        vec![
            choice("a"),
            with(
                input("page_break", "p2"),
                vec![when("a", "equals", Some(json!("yes")))],
            ),
            choice("b"),
            input("page_break", "p3"),
            with(input("short_text", "c"), vec![when("b", "answered", None)]),
        ],
        &[],
    )
    .expect("valid");
    assert_eq!(pages(&fields), [1, 2, 2, 3, 3]);
    // Page 2 hidden: b's answer does not exist, so c is hidden too.
    let given = answers(&fields, &[(0, json!("no")), (2, json!("yes"))]);
    assert_eq!(shown(&fields, &given), [true, false, false, true, false]);
    assert_eq!(
        shown_pages(&fields, &given),
        [(1, true), (2, false), (3, true)]
    );
    let given = answers(&fields, &[(0, json!("yes")), (2, json!("yes"))]);
    assert_eq!(shown(&fields, &given), [true, true, true, true, true]);
}
