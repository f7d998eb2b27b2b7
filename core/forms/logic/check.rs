//! The checks of conditions when a form is saved: each condition resolved to an earlier
//! field, its operator and value fitted to that field's kind, and the conditions of one
//! field or page refused when no answer could meet them all.

use super::*;

/// Resolves and checks the conditions of every field (`inputs[i]` belongs to
/// `fields[i]`); `aliases[i]` is another name `fields[i]` may be referred to by (the
/// id a client sent on create).
pub(crate) fn attach(
    fields: &mut [Field],
    inputs: Vec<Vec<ConditionInput>>,
    aliases: &[Option<Uuid>],
) -> Result<(), CoreError> {
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, field) in fields.iter().enumerate() {
        names.insert(field.id.to_string(), i);
        if let Some(r) = &field.r#ref {
            names.insert(r.clone(), i);
        }
        if let Some(alias) = aliases.get(i).copied().flatten() {
            names.entry(alias.to_string()).or_insert(i);
        }
    }
    for (i, conditions) in inputs.into_iter().enumerate() {
        let at = format!("fields[{i}].show_if");
        if conditions.len() > MAX_CONDITIONS {
            return Err(CoreError::Validation(format!(
                "{at} lists at most {MAX_CONDITIONS} conditions"
            )));
        }
        let mut resolved = Vec::with_capacity(conditions.len());
        for (j, input) in conditions.into_iter().enumerate() {
            let at = format!("{at}[{j}]");
            let target = names
                .get(input.field.trim())
                .copied()
                .ok_or_else(|| refuse(&at, "field", "is not a field of this form"))?;
            if target >= i {
                return Err(refuse(
                    &at,
                    "field",
                    "must be a field that comes before this one (a condition reads earlier answers only)",
                ));
            }
            resolved.push(condition(&at, &fields[target], input)?);
        }
        satisfiable(&at, fields, &resolved)?;
        fields[i].show_if = resolved;
    }
    Ok(())
}

fn refuse(at: &str, property: &str, why: &str) -> CoreError {
    CoreError::Validation(format!("{at}.{property} {why}"))
}

/// One condition on `target`, its operator and value checked against the field.
fn condition(at: &str, target: &Field, input: ConditionInput) -> Result<Condition, CoreError> {
    let op = Op::parse(input.op.trim()).ok_or_else(|| {
        let names: Vec<&str> = Op::ALL.iter().map(|o| o.as_str()).collect();
        refuse(at, "op", &format!("must be one of {}", names.join(", ")))
    })?;
    if target.kind == FieldKind::PageBreak {
        return Err(refuse(at, "field", "is a page break, which has no answer"));
    }
    if !op.applies_to(target.kind) {
        return Err(refuse(
            at,
            "op",
            &format!(
                "{} does not apply to {} fields",
                op.as_str(),
                target.kind.as_str()
            ),
        ));
    }
    let value = input.value.filter(|v| !v.is_null());
    let value = match op {
        Op::Answered | Op::NotAnswered => match value {
            None => None,
            Some(_) => return Err(refuse(at, "value", "is not taken by this operator")),
        },
        Op::AnyOf => {
            let Some(Value::Array(items)) = value else {
                return Err(refuse(at, "value", "must be a list of values"));
            };
            if items.is_empty() || items.len() > MAX_ANY_OF {
                return Err(refuse(
                    at,
                    "value",
                    &format!("must list 1 to {MAX_ANY_OF} values"),
                ));
            }
            let items = items
                .iter()
                .map(|v| operand(target, v))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|why| refuse(at, "value", &why))?;
            Some(Value::Array(items))
        }
        _ => {
            let Some(v) = value else {
                return Err(refuse(at, "value", "is required for this operator"));
            };
            Some(operand(target, &v).map_err(|why| refuse(at, "value", &why))?)
        }
    };
    Ok(Condition {
        field: target.id,
        op,
        value,
    })
}

/// A value compared with answers of `target`, normalised as they are.
pub(crate) fn operand(target: &Field, v: &Value) -> Result<Value, String> {
    use FieldKind as K;
    match target.kind {
        K::SingleChoice | K::Dropdown | K::MultipleChoice => {
            let s = v.as_str().map(str::trim).unwrap_or_default();
            target
                .options
                .iter()
                .find(|o| o.id == s)
                .or_else(|| {
                    target
                        .options
                        .iter()
                        .find(|o| o.label.eq_ignore_ascii_case(s))
                })
                .map(|o| Value::String(o.id.clone()))
                .ok_or_else(|| "must be one of the field's options (its id or label)".to_owned())
        }
        K::Rating | K::Scale => {
            let (lo, hi) = target.int_bounds();
            v.as_i64()
                .filter(|n| (lo..=hi).contains(n))
                .map(Value::from)
                .ok_or_else(|| format!("must be a whole number from {lo} to {hi}"))
        }
        K::Number => v
            .as_f64()
            .filter(|n| n.is_finite())
            .map(|_| v.clone())
            .ok_or_else(|| "must be a number".to_owned()),
        K::Date => v
            .as_str()
            .and_then(crate::forms::parse_date)
            .map(|d| Value::String(d.format("%Y-%m-%d").to_string()))
            .ok_or_else(|| "must be a date written YYYY-MM-DD".to_owned()),
        K::Checkbox => v
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| "must be true or false".to_owned()),
        K::Phone => v
            .as_str()
            .and_then(crate::forms::answers::e164)
            .map(Value::String)
            .ok_or_else(|| {
                "must be a phone number starting with + and the country code".to_owned()
            }),
        _ => match v.as_str().map(str::trim) {
            Some(s) if !s.is_empty() && s.chars().count() <= MAX_TEXT => {
                Ok(Value::String(s.to_owned()))
            }
            _ => Err(format!("must be text of 1 to {MAX_TEXT} characters")),
        },
    }
}

/// Refuses conditions that can never hold together: on each field they read, some
/// possible answer (or no answer) must meet all of them. Finite answers (choices,
/// ratings, scales, a checkbox) are tried one by one; numbers and dates as a range.
fn satisfiable(at: &str, fields: &[Field], conditions: &[Condition]) -> Result<(), CoreError> {
    let mut by_field: Vec<(Uuid, Vec<&Condition>)> = Vec::new();
    for c in conditions {
        match by_field.iter_mut().find(|(id, _)| *id == c.field) {
            Some((_, list)) => list.push(c),
            None => by_field.push((c.field, vec![c])),
        }
    }
    for (id, list) in by_field {
        let Some(field) = fields.iter().find(|f| f.id == id) else {
            continue;
        };
        let ok = candidates(field).map_or_else(
            || open_domain_possible(field, &list),
            |answers| {
                answers
                    .iter()
                    .any(|answer| list.iter().all(|c| holds(c, field.kind, answer.as_ref())))
            },
        );
        if !ok {
            return Err(CoreError::Validation(format!(
                "{at}: the conditions on \"{}\" can never all hold",
                field.label
            )));
        }
    }
    Ok(())
}

/// Every answer `field` can have (None: none), when there are few of them.
fn candidates(field: &Field) -> Option<Vec<Option<Value>>> {
    use FieldKind as K;
    let mut all = vec![None];
    match field.kind {
        K::SingleChoice | K::Dropdown => {
            all.extend(
                field
                    .options
                    .iter()
                    .map(|o| Some(Value::String(o.id.clone()))),
            );
            if field.allow_other {
                all.push(Some(serde_json::json!({"other": ""})));
            }
        }
        // Each option alone, and all of them: enough for equals-free operators.
        K::MultipleChoice => {
            all.extend(
                field
                    .options
                    .iter()
                    .map(|o| Some(Value::Array(vec![Value::String(o.id.clone())]))),
            );
            all.push(Some(Value::Array(
                field
                    .options
                    .iter()
                    .map(|o| Value::String(o.id.clone()))
                    .collect(),
            )));
        }
        K::Rating | K::Scale => {
            let (lo, hi) = field.int_bounds();
            all.extend((lo..=hi).map(|n| Some(Value::from(n))));
        }
        K::Checkbox => {
            if !field.required {
                all.push(Some(Value::Bool(false)));
            }
            all.push(Some(Value::Bool(true)));
        }
        _ => return None,
    }
    Some(all)
}

/// Numbers, dates and text: `answered` against `not_answered`, two different
/// `equals`, an `equals` against its `not_equals`, and an empty range are what cannot
/// hold.
fn open_domain_possible(field: &Field, list: &[&Condition]) -> bool {
    let has = |op: Op| list.iter().any(|c| c.op == op);
    let needs_answer = list
        .iter()
        .any(|c| !matches!(c.op, Op::NotAnswered | Op::NotEquals));
    if has(Op::NotAnswered) && needs_answer {
        return false;
    }
    let equals: Vec<&Value> = list
        .iter()
        .filter(|c| c.op == Op::Equals)
        .filter_map(|c| c.value.as_ref())
        .collect();
    if let Some(first) = equals.first() {
        let kind = field.kind;
        if equals.iter().any(|v| !same(kind, first, v)) {
            return false;
        }
        // With the answer fixed, every other condition must hold of it.
        return list.iter().all(|c| holds(c, kind, Some(first)));
    }
    // A range: the largest lower bound below the smallest upper one (and within the
    // field's own bounds).
    let key = |v: &Value| order_key(field.kind, v);
    let mut low = field.min.as_ref().and_then(key);
    let mut high = field.max.as_ref().and_then(key);
    let mut open_low = false;
    let mut open_high = false;
    for c in list {
        let Some(k) = c.value.as_ref().and_then(key) else {
            continue;
        };
        match c.op {
            Op::GreaterThan if low.is_none_or(|l| k >= l) => (low, open_low) = (Some(k), true),
            Op::LessThan if high.is_none_or(|h| k <= h) => (high, open_high) = (Some(k), true),
            _ => {}
        }
    }
    match (low, high) {
        (Some(l), Some(h)) if open_low || open_high => {
            // Dates are whole days: nothing lies strictly between two neighbours.
            let step = if field.kind == FieldKind::Date {
                1.0
            } else {
                0.0
            };
            if open_low && open_high {
                h - l > step
            } else {
                h > l
            }
        }
        (Some(l), Some(h)) => h >= l,
        _ => true,
    }
}
