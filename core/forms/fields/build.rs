//! Building stored fields from what a client sends: each kind's properties checked and
//! normalised (options and their ids, bounds, scale labels, file types), ids kept on
//! update, and the fields' conditions resolved (`logic::attach`).

use super::*;

/// Validates field inputs into stored fields. On update, `existing` are the form's
/// current fields: an input id must name one of them and keeps its identity.
pub(crate) fn build_fields(
    inputs: Vec<FieldInput>,
    existing: &[Field],
) -> Result<Vec<Field>, CoreError> {
    if inputs.len() > MAX_FIELDS {
        return Err(CoreError::Validation(format!(
            "a form has at most {MAX_FIELDS} fields"
        )));
    }
    let mut seen = std::collections::HashSet::new();
    let mut refs = std::collections::HashSet::new();
    let mut conditions = Vec::with_capacity(inputs.len());
    let mut aliases = Vec::with_capacity(inputs.len());
    let mut fields = inputs
        .into_iter()
        .enumerate()
        .map(|(i, mut input)| {
            let at = format!("fields[{i}]");
            let id = match input.id {
                Some(id) if existing.iter().any(|f| f.id == id) => {
                    if !seen.insert(id) {
                        return Err(CoreError::Validation(format!("{at}.id is repeated")));
                    }
                    id
                }
                Some(_) => {
                    return Err(CoreError::Validation(format!(
                        "{at}.id is not a field of this form; omit it to add a field"
                    )));
                }
                None => Uuid::new_v4(),
            };
            if let Some(r) = &input.r#ref
                && !refs.insert(r.clone())
            {
                return Err(CoreError::Validation(format!("{at}.ref is repeated")));
            }
            conditions.push(std::mem::take(&mut input.show_if));
            aliases.push(input.alias);
            build_field(&at, id, input)
        })
        .collect::<Result<Vec<Field>, CoreError>>()?;
    logic::attach(&mut fields, conditions, &aliases)?;
    Ok(fields)
}

fn build_field(at: &str, id: Uuid, input: FieldInput) -> Result<Field, CoreError> {
    if input.kind.is_empty() {
        return Err(CoreError::Validation(format!("{at}.type is required")));
    }
    let kind: FieldKind = input
        .kind
        .parse()
        .map_err(|e| CoreError::Validation(format!("{at}.type {e}")))?;
    if input.label.trim().is_empty() {
        return Err(CoreError::Validation(format!("{at}.label is required")));
    }
    check_len(&format!("{at}.label"), &input.label, 1, MAX_LABEL)?;
    if let Some(p) = &input.placeholder {
        check_len(&format!("{at}.placeholder"), p, 0, MAX_PLACEHOLDER)?;
    }
    let is_file = kind == FieldKind::FileUpload;
    if !is_file && (!input.allowed_types.is_empty() || input.max_size_mb.is_some()) {
        return Err(CoreError::Validation(format!(
            "{at}: allowed_types and max_size_mb apply only to file_upload fields"
        )));
    }
    if input.allowed_types.len() > MAX_ALLOWED_TYPES {
        return Err(CoreError::Validation(format!(
            "{at}.allowed_types lists at most {MAX_ALLOWED_TYPES} extensions"
        )));
    }
    let mut allowed_types = Vec::with_capacity(input.allowed_types.len());
    let mut listed = std::collections::HashSet::with_capacity(input.allowed_types.len());
    for ext in &input.allowed_types {
        let ext = ext.trim().trim_start_matches('.').to_ascii_lowercase();
        let ok =
            !ext.is_empty() && ext.len() <= 16 && ext.bytes().all(|b| b.is_ascii_alphanumeric());
        if !ok {
            return Err(CoreError::Validation(format!(
                "{at}.allowed_types must be file extensions such as \"pdf\" or \"png\""
            )));
        }
        // Duplicates are dropped, in linear time; the first spelling keeps its place.
        if listed.insert(ext.clone()) {
            allowed_types.push(ext);
        }
    }
    if let Some(mb) = input.max_size_mb
        && !(mb > 0.0 && mb <= MAX_FILE_MB)
    {
        return Err(CoreError::Validation(format!(
            "{at}.max_size_mb must be greater than 0 and at most {MAX_FILE_MB}"
        )));
    }
    let correct_answer = input.correct_answer.filter(|v| !v.is_null());
    match &correct_answer {
        Some(_) if is_file => {
            return Err(CoreError::Validation(format!(
                "{at}.correct_answer is not available on file_upload fields"
            )));
        }
        Some(Value::String(_) | Value::Number(_)) | None => {}
        Some(_) => {
            return Err(CoreError::Validation(format!(
                "{at}.correct_answer must be a string or a number"
            )));
        }
    }
    if let Some(points) = input.points {
        if correct_answer.is_none() {
            return Err(CoreError::Validation(format!(
                "{at}.points needs a correct_answer"
            )));
        }
        if !(0..=1000).contains(&points) {
            return Err(CoreError::Validation(format!(
                "{at}.points must be from 0 to 1000"
            )));
        }
    }
    if correct_answer.is_some()
        && matches!(
            kind,
            FieldKind::MultipleChoice | FieldKind::Checkbox | FieldKind::Hidden
        )
    {
        return Err(CoreError::Validation(format!(
            "{at}.correct_answer is not available on {} fields",
            kind.as_str()
        )));
    }
    if let Some(r) = &input.r#ref {
        let ok = !r.is_empty()
            && r.len() <= MAX_REF
            && r.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !ok {
            return Err(CoreError::Validation(format!(
                "{at}.ref must be 1 to {MAX_REF} letters, digits, '_' or '-'"
            )));
        }
    }
    if kind == FieldKind::PageBreak
        && (input.required || correct_answer.is_some() || input.placeholder.is_some())
    {
        return Err(CoreError::Validation(format!(
            "{at}: a page_break is not a question: it takes a label (the page's title) and show_if only"
        )));
    }
    if kind == FieldKind::Hidden && input.required {
        return Err(CoreError::Validation(format!(
            "{at}.required: a hidden field is never required"
        )));
    }
    let options = build_options(at, kind, input.options)?;
    let (min_selected, max_selected) = check_selected(
        at,
        kind,
        input.min_selected,
        input.max_selected,
        options.len(),
    )?;
    if input.allow_other && !matches!(kind, FieldKind::SingleChoice | FieldKind::MultipleChoice) {
        return Err(CoreError::Validation(format!(
            "{at}.allow_other applies only to single_choice and multiple_choice fields"
        )));
    }
    let (min, max) = build_bounds(at, kind, input.min, input.max)?;
    let (min_label, max_label) = (
        scale_label(&format!("{at}.min_label"), kind, input.min_label)?,
        scale_label(&format!("{at}.max_label"), kind, input.max_label)?,
    );
    Ok(Field {
        id,
        kind,
        label: input.label,
        required: input.required,
        placeholder: input.placeholder,
        allowed_types,
        max_size_mb: input.max_size_mb,
        correct_answer,
        points: input.points,
        options,
        min_selected,
        max_selected,
        allow_other: input.allow_other,
        min,
        max,
        min_label,
        max_label,
        r#ref: input.r#ref,
        show_if: Vec::new(),
    })
}

/// The options of a choice field: 1 to 100, labels of 1 to 200 characters, distinct;
/// a sent id is kept (it must be unique in the field), an empty one is assigned.
fn build_options(
    at: &str,
    kind: FieldKind,
    inputs: Vec<FieldOption>,
) -> Result<Vec<FieldOption>, CoreError> {
    let at = format!("{at}.options");
    if !kind.has_options() {
        if inputs.is_empty() {
            return Ok(inputs);
        }
        return Err(CoreError::Validation(format!(
            "{at} apply only to single_choice, dropdown and multiple_choice fields"
        )));
    }
    if inputs.is_empty() || inputs.len() > MAX_OPTIONS {
        return Err(CoreError::Validation(format!(
            "{at} must list 1 to {MAX_OPTIONS} options"
        )));
    }
    let mut labels = std::collections::HashSet::with_capacity(inputs.len());
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (j, option) in inputs.iter().enumerate() {
        let label = option.label.trim();
        if label.is_empty() || label.chars().count() > MAX_OPTION_LABEL {
            return Err(CoreError::Validation(format!(
                "{at}[{j}].label must be 1 to {MAX_OPTION_LABEL} characters"
            )));
        }
        if !labels.insert(label.to_lowercase()) {
            return Err(CoreError::Validation(format!(
                "{at}[{j}].label repeats another option's label"
            )));
        }
        if option.id.is_empty() {
            continue;
        }
        let id_ok = option.id.len() <= MAX_OPTION_ID
            && option
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !id_ok {
            return Err(CoreError::Validation(format!(
                "{at}[{j}].id must be 1 to {MAX_OPTION_ID} letters, digits, '_' or '-'"
            )));
        }
        if !ids.insert(option.id.clone()) {
            return Err(CoreError::Validation(format!("{at}[{j}].id is repeated")));
        }
    }
    Ok(inputs
        .into_iter()
        .map(|option| {
            let id = if option.id.is_empty() {
                loop {
                    let fresh = format!("opt_{}", &Uuid::new_v4().simple().to_string()[..10]);
                    if ids.insert(fresh.clone()) {
                        break fresh;
                    }
                }
            } else {
                option.id
            };
            FieldOption {
                id,
                label: option.label.trim().to_owned(),
            }
        })
        .collect())
}

/// multiple_choice: 0 <= min_selected <= max_selected <= the number of options.
fn check_selected(
    at: &str,
    kind: FieldKind,
    min: Option<i32>,
    max: Option<i32>,
    options: usize,
) -> Result<(Option<i32>, Option<i32>), CoreError> {
    if kind != FieldKind::MultipleChoice {
        for (name, v) in [("min_selected", min), ("max_selected", max)] {
            if v.is_some() {
                return Err(CoreError::Validation(format!(
                    "{at}.{name} applies only to multiple_choice fields"
                )));
            }
        }
        return Ok((None, None));
    }
    let options = i32::try_from(options).unwrap_or(i32::MAX);
    if let Some(m) = min
        && !(0..=options).contains(&m)
    {
        return Err(CoreError::Validation(format!(
            "{at}.min_selected must be from 0 to the number of options ({options})"
        )));
    }
    if let Some(m) = max
        && !(min.unwrap_or(0).max(1)..=options).contains(&m)
    {
        return Err(CoreError::Validation(format!(
            "{at}.max_selected must be from min_selected (and at least 1) to the number of options ({options})"
        )));
    }
    Ok((min, max))
}

/// `min` / `max` of number, rating, scale and date fields, with the defaults of rating
/// (max 5) and scale (0..10) filled in.
fn build_bounds(
    at: &str,
    kind: FieldKind,
    min: Option<Value>,
    max: Option<Value>,
) -> Result<(Option<Value>, Option<Value>), CoreError> {
    let min = min.filter(|v| !v.is_null());
    let max = max.filter(|v| !v.is_null());
    let refuse = |name: &str, what: &str| CoreError::Validation(format!("{at}.{name} {what}"));
    let int = |name: &str, v: &Option<Value>| -> Result<Option<i64>, CoreError> {
        match v {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .map(Some)
                .ok_or_else(|| refuse(name, "must be an integer")),
        }
    };
    match kind {
        FieldKind::Number => {
            const MAX_NUMBER_BOUND: f64 = 1e15;
            let num = |name: &str, v: &Option<Value>| -> Result<Option<f64>, CoreError> {
                match v {
                    None => Ok(None),
                    // Within ±10^15, where a double is exact to the unit and the
                    // stored JSON reads back as the same number.
                    Some(v) => v
                        .as_f64()
                        .filter(|f| f.is_finite() && f.abs() <= MAX_NUMBER_BOUND)
                        .map(Some)
                        .ok_or_else(|| refuse(name, "must be a number from -1e15 to 1e15")),
                }
            };
            if let (Some(lo), Some(hi)) = (num("min", &min)?, num("max", &max)?)
                && lo > hi
            {
                return Err(refuse("min", "must not be greater than max"));
            }
            Ok((min, max))
        }
        FieldKind::Rating => {
            if min.is_some() {
                return Err(refuse(
                    "min",
                    "does not apply to rating fields (they start at 1)",
                ));
            }
            let n = int("max", &max)?.unwrap_or(DEFAULT_RATING);
            if !(1..=MAX_RATING).contains(&n) {
                return Err(refuse("max", "must be from 1 to 10"));
            }
            Ok((None, Some(Value::from(n))))
        }
        FieldKind::Scale => {
            let lo = int("min", &min)?.unwrap_or(0);
            let hi = int("max", &max)?.unwrap_or(MAX_SCALE);
            if !(0..MAX_SCALE).contains(&lo) {
                return Err(refuse("min", "must be from 0 to 9"));
            }
            if !(lo + 1..=MAX_SCALE).contains(&hi) {
                return Err(refuse("max", "must be greater than min and at most 10"));
            }
            Ok((Some(Value::from(lo)), Some(Value::from(hi))))
        }
        FieldKind::Date => {
            let date =
                |name: &str, v: &Option<Value>| -> Result<Option<chrono::NaiveDate>, CoreError> {
                    match v {
                        None => Ok(None),
                        Some(v) => v
                            .as_str()
                            .and_then(parse_date)
                            .map(Some)
                            .ok_or_else(|| refuse(name, "must be a date written YYYY-MM-DD")),
                    }
                };
            if let (Some(lo), Some(hi)) = (date("min", &min)?, date("max", &max)?)
                && lo > hi
            {
                return Err(refuse("min", "must not be after max"));
            }
            Ok((min, max))
        }
        _ => {
            for (name, v) in [("min", &min), ("max", &max)] {
                if v.is_some() {
                    return Err(refuse(
                        name,
                        "applies only to number, rating, scale and date fields",
                    ));
                }
            }
            Ok((None, None))
        }
    }
}

/// A scale's end label: at most 100 characters, on scale fields only.
fn scale_label(
    at: &str,
    kind: FieldKind,
    label: Option<String>,
) -> Result<Option<String>, CoreError> {
    match label {
        None => Ok(None),
        Some(_) if kind != FieldKind::Scale => Err(CoreError::Validation(format!(
            "{at} applies only to scale fields"
        ))),
        Some(l) if l.chars().count() > MAX_SCALE_LABEL => Err(CoreError::Validation(format!(
            "{at} must be at most {MAX_SCALE_LABEL} characters"
        ))),
        Some(l) if l.trim().is_empty() => Ok(None),
        Some(l) => Ok(Some(l)),
    }
}
