//! The summary of a form (`GET /forms/{id}/summary`, gRPC GetFormSummary): every figure
//! against a plain computation in this test over the same generated responses (seeded
//! pseudo-random answers to every kind, created over REST; their times, devices and
//! completion times then set by SQL; partial responses inserted by SQL), over the whole
//! history and narrowed by since/until; a form without responses; another account's form.

use crate::fixtures::*;
use crate::harness::*;
use chrono::{DateTime, Duration as TimeDelta, TimeZone, Utc};
use forms::pb::{self, responses_service_client::ResponsesServiceClient};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use tonic::Code;

/// Every kind, in three pages: page 2 shown when "colour" is Red.
fn summary_fields() -> Value {
    json!([
        {"type": "short_text", "label": "Name"},
        {"type": "email", "label": "Email"},
        {"type": "long_text", "label": "Story"},
        {"type": "number", "label": "Amount", "min": -100, "max": 1000},
        {"type": "single_choice", "ref": "colour", "label": "Colour", "allow_other": true,
         "options": [{"id": "red", "label": "Red"}, {"id": "green", "label": "Green"},
                     {"id": "blue", "label": "Blue"}]},
        {"type": "dropdown", "label": "Size",
         "options": [{"id": "s", "label": "S"}, {"id": "m", "label": "M"}, {"id": "l", "label": "L"}]},
        {"type": "multiple_choice", "label": "Toppings", "allow_other": true,
         "options": [{"id": "ham", "label": "Ham"}, {"id": "egg", "label": "Egg"},
                     {"id": "kale", "label": "Kale"}]},
        {"type": "rating", "label": "Stars", "max": 5},
        {"type": "scale", "label": "Recommend"},
        {"type": "scale", "label": "Ease", "min": 1, "max": 5},
        {"type": "date", "label": "Day"},
        {"type": "url", "label": "Site"},
        {"type": "phone", "label": "Phone"},
        {"type": "checkbox", "label": "Consent"},
        {"type": "hidden", "label": "utm_source"},
        {"type": "file_upload", "label": "Attachment"},
        {"type": "page_break", "label": "About red",
         "show_if": [{"field": "colour", "op": "equals", "value": "Red"}]},
        {"type": "short_text", "label": "Why red"},
        {"type": "page_break", "label": "Last page"},
        {"type": "textarea", "label": "Anything else"},
    ])
}

/// One answer of field `f` (its JSON definition), or none.
fn answer(rng: &mut Rng, f: &Value, n: usize) -> Option<Value> {
    if !rng.chance(75) {
        return None;
    }
    let options: Vec<String> = f["options"]
        .as_array()
        .map(|o| {
            o.iter()
                .map(|o| o["id"].as_str().expect("option id").to_owned())
                .collect()
        })
        .unwrap_or_default();
    let pick = |rng: &mut Rng| options[rng.below(options.len() as u64) as usize].clone();
    Some(match f["type"].as_str().expect("type") {
        "short_text" | "long_text" | "textarea" => json!(format!("answer {n} {}", rng.below(1000))),
        "email" => json!(format!("p{n}@example.com")),
        "number" => json!(rng.below(2200) as f64 / 2.0 - 100.0),
        "single_choice" if rng.chance(15) => json!({"other": format!("other {n}")}),
        "single_choice" | "dropdown" => json!(pick(rng)),
        "multiple_choice" => {
            let mut ticked: Vec<Value> = options
                .iter()
                .filter(|_| rng.chance(50))
                .map(|o| json!(o))
                .collect();
            if ticked.is_empty() || rng.chance(20) {
                ticked.push(json!({"other": format!("more {n}")}));
            }
            json!(ticked)
        }
        "rating" => json!(1 + rng.below(5)),
        "scale" => {
            let lo = f["min"].as_i64().unwrap_or(0);
            let hi = f["max"].as_i64().unwrap_or(10);
            json!(lo + rng.below((hi - lo + 1) as u64) as i64)
        }
        "date" => json!(format!(
            "2026-{:02}-{:02}",
            1 + rng.below(12),
            1 + rng.below(28)
        )),
        "url" => json!(format!("https://example.com/p{n}")),
        "phone" => json!(format!("+44207946{:04}", rng.below(10_000))),
        "checkbox" => json!(rng.chance(50)),
        "hidden" => json!(format!("src{}", rng.below(4))),
        "file_upload" => json!(format!("https://files.example.com/f{n}.pdf")),
        other => panic!("no answer for {other}"),
    })
}

/// A response as the test knows it: as stored (the create's reply), with its time,
/// device and completion time as set by SQL.
#[derive(Clone)]
struct Known {
    id: String,
    answers: Map<String, Value>,
    submitted_at: DateTime<Utc>,
    device_type: Option<String>,
    browser: Option<String>,
    os: Option<String>,
    completion: Option<i64>,
}

/// A partial response: when first saved and the page it is at.
#[derive(Clone)]
struct Partial {
    saved_at: DateTime<Utc>,
    page: i64,
}

struct Setup {
    app: TestApp,
    key: String,
    form: Value,
    form_id: String,
    known: Vec<Known>,
    partials: Vec<Partial>,
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 6, 0, 0)
        .single()
        .expect("start")
}

async fn setup(count: usize) -> Setup {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, summary_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let fields = form["fields"].as_array().expect("fields").clone();
    let mut rng = Rng(21);
    let mut known = Vec::new();
    for n in 0..count {
        let mut answers = Map::new();
        let mut red = false;
        let mut page = 1;
        for f in &fields {
            if f["type"] == "page_break" {
                page += 1;
                continue;
            }
            // Page 2 is answered only when it is shown (colour Red).
            if page == 2 && !red {
                continue;
            }
            if let Some(value) = answer(&mut rng, f, n) {
                if f["ref"] == "colour" {
                    red = value == json!("red");
                }
                answers.insert(f["id"].as_str().expect("id").to_owned(), value);
            }
        }
        let reply = app
            .post(
                &format!("/forms/{form_id}/responses"),
                &key,
                &json!({"answers": answers}),
            )
            .await;
        let stored = reply.ok(201)["response"].clone();
        // Spread over a week, some hours apart, never the same second.
        let submitted_at = start()
            + TimeDelta::minutes(i64::try_from(n).expect("n") * 277 + rng.below(200) as i64);
        let devices = [Some("desktop"), Some("mobile"), Some("tablet"), None];
        let browsers = [Some("Chrome"), Some("Firefox"), None];
        let systems = [Some("Linux"), Some("iOS"), Some("Windows"), None];
        let k = Known {
            id: stored["id"].as_str().expect("id").to_owned(),
            answers: stored["answers"].as_object().expect("answers").clone(),
            submitted_at,
            device_type: devices[rng.below(4) as usize].map(str::to_owned),
            browser: browsers[rng.below(3) as usize].map(str::to_owned),
            os: systems[rng.below(4) as usize].map(str::to_owned),
            completion: rng.chance(80).then(|| 5 + rng.below(600) as i64),
        };
        sqlx::query(
            "UPDATE responses SET submitted_at = $2, device_type = $3, browser = $4, os = $5,
                    completion_time_seconds = $6
              WHERE id = $1::uuid",
        )
        .bind(&k.id)
        .bind(k.submitted_at)
        .bind(&k.device_type)
        .bind(&k.browser)
        .bind(&k.os)
        .bind(k.completion)
        .execute(&app.pool)
        .await
        .expect("set response");
        known.push(k);
    }
    // Partials: one at each page, on different days, plus one completed long ago
    // (completed_at set: it is a response now, no longer a partial).
    let mut partials = Vec::new();
    if count > 0 {
        for (i, page) in [1_i64, 2, 3, 2].into_iter().enumerate() {
            let saved_at = start() + TimeDelta::hours(31 * i64::try_from(i).expect("i") + 3);
            insert_partial(&app, &form_id, saved_at, page, false).await;
            partials.push(Partial { saved_at, page });
        }
        insert_partial(&app, &form_id, start() + TimeDelta::hours(5), 3, true).await;
    }
    // The times were moved by SQL, behind the rollup's back: drop what it may have
    // tallied with the old ones, as a delete does.
    restart_tally(&app, &form_id).await;
    Setup {
        app,
        key,
        form,
        form_id,
        known,
        partials,
    }
}

async fn insert_partial(
    app: &TestApp,
    form_id: &str,
    saved_at: DateTime<Utc>,
    page: i64,
    completed: bool,
) {
    sqlx::query(
        "INSERT INTO partial_responses (id, form_id, resume_digest, answers, page, started_at,
                                        saved_at, updated_at, completed_at)
         VALUES (gen_random_uuid(), $1::uuid, sha256(gen_random_uuid()::text::bytea), '{}',
                 $2, $3, $3, $3, CASE WHEN $4 THEN $3 END)",
    )
    .bind(form_id)
    .bind(i32::try_from(page).expect("page"))
    .bind(saved_at)
    .bind(completed)
    .execute(&app.pool)
    .await
    .expect("insert partial");
}

/// percentile_cont: the value at fraction `p` of the sorted values, interpolated.
fn percentile_cont(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let at = p * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64))
}

fn shares(values: impl Iterator<Item = Option<String>>) -> Value {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for v in values {
        *counts
            .entry(v.unwrap_or_else(|| "unknown".into()))
            .or_default() += 1;
    }
    let mut list: Vec<(String, i64)> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    json!(
        list.into_iter()
            .map(|(value, count)| json!({"value": value, "count": count}))
            .collect::<Vec<_>>()
    )
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The summary computed plainly from what the test made, for the window `(since, until)`.
fn expected(s: &Setup, since: Option<DateTime<Utc>>, until: Option<DateTime<Utc>>) -> Value {
    let inside = |at: DateTime<Utc>| since.is_none_or(|s| at > s) && until.is_none_or(|u| at < u);
    let done: Vec<&Known> = s.known.iter().filter(|k| inside(k.submitted_at)).collect();
    let partial: Vec<&Partial> = s.partials.iter().filter(|p| inside(p.saved_at)).collect();
    let (completed, partials) = (done.len() as i64, partial.len() as i64);

    let mut days: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    let mut hours: BTreeMap<DateTime<Utc>, (i64, i64)> = BTreeMap::new();
    let hour_of = |at: DateTime<Utc>| {
        Utc.timestamp_opt(at.timestamp() - at.timestamp().rem_euclid(3600), 0)
            .single()
            .expect("hour")
    };
    for k in &done {
        days.entry(k.submitted_at.format("%Y-%m-%d").to_string())
            .or_default()
            .0 += 1;
        hours.entry(hour_of(k.submitted_at)).or_default().0 += 1;
    }
    for p in &partial {
        days.entry(p.saved_at.format("%Y-%m-%d").to_string())
            .or_default()
            .1 += 1;
        hours.entry(hour_of(p.saved_at)).or_default().1 += 1;
    }
    let hourly = matches!((since, until), (Some(s), Some(u)) if u - s <= TimeDelta::hours(48));
    let per_hour: Vec<Value> = if hourly {
        hours
            .into_iter()
            .map(|(h, (c, p))| json!({"hour": rfc3339(h), "completed": c, "partial": p}))
            .collect()
    } else {
        Vec::new()
    };

    let mut times: Vec<f64> = done
        .iter()
        .filter_map(|k| k.completion.map(|c| c as f64))
        .collect();
    times.sort_by(f64::total_cmp);

    let mut fields_out = Vec::new();
    for f in s.form["fields"].as_array().expect("fields") {
        let kind = f["type"].as_str().expect("type");
        if kind == "page_break" {
            continue;
        }
        let id = f["id"].as_str().expect("id");
        let given: Vec<(&Known, &Value)> = done
            .iter()
            .filter_map(|k| k.answers.get(id).filter(|v| !v.is_null()).map(|v| (*k, v)))
            .collect();
        let mut out = json!({"field_id": id, "type": kind, "label": f["label"],
                             "answered": given.len()});
        match kind {
            "single_choice" | "dropdown" | "multiple_choice" => {
                let items: Vec<&Value> = given
                    .iter()
                    .flat_map(|(_, v)| match v {
                        Value::Array(items) => items.iter().collect::<Vec<_>>(),
                        other => vec![*other],
                    })
                    .collect();
                let options: Vec<Value> = f["options"]
                    .as_array()
                    .expect("options")
                    .iter()
                    .map(|o| {
                        let count = items.iter().filter(|v| ***v == o["id"]).count();
                        json!({"option_id": o["id"], "label": o["label"], "count": count})
                    })
                    .collect();
                let other = items.iter().filter(|v| v.is_object()).count();
                out["choice"] = json!({"options": options, "other": other});
            }
            "rating" | "scale" => {
                let values: Vec<i64> = given
                    .iter()
                    .map(|(_, v)| v.as_i64().expect("int"))
                    .collect();
                let (lo, hi) = if kind == "rating" {
                    (1, f["max"].as_i64().unwrap_or(5))
                } else {
                    (
                        f["min"].as_i64().unwrap_or(0),
                        f["max"].as_i64().unwrap_or(10),
                    )
                };
                let n = values.len() as f64;
                let average = (!values.is_empty()).then(|| values.iter().sum::<i64>() as f64 / n);
                let nps =
                    (kind == "scale" && (lo, hi) == (0, 10) && !values.is_empty()).then(|| {
                        let promoters = values.iter().filter(|v| **v >= 9).count() as f64;
                        let detractors = values.iter().filter(|v| **v <= 6).count() as f64;
                        (1000.0 * (promoters - detractors) / n).round() / 10.0
                    });
                let distribution: Vec<Value> = (lo..=hi)
                    .map(|v| json!({"value": v, "count": values.iter().filter(|x| **x == v).count()}))
                    .collect();
                out["scale"] =
                    json!({"average": average, "distribution": distribution, "nps": nps});
            }
            "number" => {
                let values: Vec<f64> = given
                    .iter()
                    .map(|(_, v)| v.as_f64().expect("number"))
                    .collect();
                let n = values.len() as f64;
                out["number"] = json!({
                    "min": values.iter().copied().reduce(f64::min),
                    "max": values.iter().copied().reduce(f64::max),
                    "average": (!values.is_empty()).then(|| values.iter().sum::<f64>() / n),
                });
            }
            "date" => {
                let values: Vec<&str> = given
                    .iter()
                    .map(|(_, v)| v.as_str().expect("date"))
                    .collect();
                out["date"] =
                    json!({"earliest": values.iter().min(), "latest": values.iter().max()});
            }
            "checkbox" => {
                let ticked = given.iter().filter(|(_, v)| **v == json!(true)).count();
                out["checkbox"] = json!({"ticked": ticked});
            }
            "file_upload" => {}
            _ => {
                let mut texts: Vec<&(&Known, &Value)> = given.iter().collect();
                texts.sort_by(|a, b| {
                    b.0.submitted_at
                        .cmp(&a.0.submitted_at)
                        .then_with(|| b.0.id.cmp(&a.0.id))
                });
                let newest: Vec<Value> = texts
                    .into_iter()
                    .take(5)
                    .map(|(k, v)| {
                        json!({"response_id": k.id, "submitted_at": rfc3339(k.submitted_at),
                               "value": v})
                    })
                    .collect();
                out["text"] = json!({"newest": newest});
            }
        }
        fields_out.push(out);
    }

    // Drop-off: page 2 is shown when the colour is red; pages 1 and 3 always.
    let colour = s.form["fields"][4]["id"].as_str().expect("colour id");
    let mut reached = [0_i64; 3];
    for k in &done {
        reached[0] += 1;
        if k.answers.get(colour) == Some(&json!("red")) {
            reached[1] += 1;
        }
        reached[2] += 1;
    }
    for p in &partial {
        for r in reached.iter_mut().take(p.page as usize) {
            *r += 1;
        }
    }
    let titles = ["", "About red", "Last page"];
    let pages: Vec<Value> = (0..3)
        .map(|i| json!({"page": i + 1, "title": titles[i], "reached": reached[i]}))
        .collect();

    json!({
        "counts": {
            "completed": completed,
            "partial": partials,
            "completion_rate": (completed + partials > 0)
                .then(|| completed as f64 / (completed + partials) as f64),
            "per_day": days.into_iter()
                .map(|(d, (c, p))| json!({"date": d, "completed": c, "partial": p}))
                .collect::<Vec<_>>(),
            "per_hour": per_hour,
        },
        "completion_time": {
            "count": times.len(),
            "median_seconds": percentile_cont(&times, 0.5),
            "p90_seconds": percentile_cont(&times, 0.9),
        },
        "device_types": shares(done.iter().map(|k| k.device_type.clone())),
        "browsers": shares(done.iter().map(|k| k.browser.clone())),
        "operating_systems": shares(done.iter().map(|k| k.os.clone())),
        "fields": fields_out,
        "pages": pages,
    })
}

/// `actual` equals `expected` member for member; numbers within 1e-9.
fn assert_same(actual: &Value, expected: &Value, path: &str) {
    match (actual, expected) {
        (Value::Number(a), Value::Number(e)) => {
            let (a, e) = (a.as_f64().expect("f64"), e.as_f64().expect("f64"));
            assert!((a - e).abs() <= 1e-9, "{path}: {a} != expected {e}");
        }
        (Value::Object(a), Value::Object(e)) => {
            let (ak, ek): (Vec<&String>, Vec<&String>) = (a.keys().collect(), e.keys().collect());
            assert_eq!(ak, ek, "{path}: members");
            for (k, v) in e {
                assert_same(&a[k], v, &format!("{path}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(e)) => {
            assert_eq!(a.len(), e.len(), "{path}: length\n{actual}\n{expected}");
            for (i, (a, e)) in a.iter().zip(e).enumerate() {
                assert_same(a, e, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(actual, expected, "{path}"),
    }
}

async fn summary(s: &Setup, query: &[(&str, &str)]) -> Value {
    let path = with_query(&format!("/forms/{}/summary", s.form_id), query);
    s.app.get(&path, &s.key).await.ok(200)["summary"].clone()
}

#[tokio::test]
async fn every_figure_matches_a_plain_computation() {
    let s = setup(40).await;
    let all = summary(&s, &[]).await;
    assert_same(&all, &expected(&s, None, None), "summary");
    // The fixture covers what it means to: figures that are not all zero.
    assert_eq!(all["counts"]["completed"], 40);
    assert_eq!(all["counts"]["partial"], 4);
    assert!(all["counts"]["per_day"].as_array().expect("days").len() > 3);
    let nps = &all["fields"][8]["scale"]["nps"];
    assert!(nps.is_number(), "{nps}");
    assert!(all["pages"][1]["reached"].as_i64() < all["pages"][0]["reached"].as_i64());

    // Narrowed: a window of days (no hours), and one of 48 hours (per hour too); both
    // ends are exclusive (a response exactly at `since` is out).
    let on = |k: usize| rfc3339(s.known[k].submitted_at);
    for (since, until) in [
        (s.known[5].submitted_at, s.known[30].submitted_at),
        (
            s.known[3].submitted_at,
            s.known[3].submitted_at + TimeDelta::hours(48),
        ),
    ] {
        let (a, b) = (rfc3339(since), rfc3339(until));
        let narrowed = summary(&s, &[("since", &a), ("until", &b)]).await;
        assert_same(&narrowed, &expected(&s, Some(since), Some(until)), &a);
    }
    let hourly = summary(
        &s,
        &[
            ("since", &on(3)),
            (
                "until",
                &rfc3339(s.known[3].submitted_at + TimeDelta::hours(48)),
            ),
        ],
    )
    .await;
    assert!(
        !hourly["counts"]["per_hour"]
            .as_array()
            .expect("hours")
            .is_empty()
    );
    let since_only = summary(&s, &[("since", &on(20))]).await;
    assert_same(
        &since_only,
        &expected(&s, Some(s.known[20].submitted_at), None),
        "since only",
    );
    assert_eq!(since_only["counts"]["completed"], 19);

    // gRPC answers the same figures.
    let mut client = ResponsesServiceClient::connect(s.app.grpc_url.clone())
        .await
        .expect("connecting to the core");
    let reply = client
        .get_form_summary(grpc_request(
            pb::GetFormSummaryRequest {
                form_id: s.form_id.clone(),
                ..Default::default()
            },
            &s.key,
        ))
        .await
        .expect("summary over gRPC")
        .into_inner()
        .summary
        .expect("summary");
    let counts = reply.counts.expect("counts");
    assert_eq!((counts.completed, counts.partial), (40, 4));
    assert_eq!(reply.fields.len(), 18);
}

#[tokio::test]
async fn a_form_without_responses_has_zeros_and_nulls() {
    let s = setup(0).await;
    let empty = summary(&s, &[]).await;
    assert_same(&empty, &expected(&s, None, None), "empty");
    assert_eq!(empty["counts"]["completion_rate"], Value::Null);
    assert_eq!(empty["completion_time"]["median_seconds"], Value::Null);
    assert_eq!(empty["fields"][3]["number"]["average"], Value::Null);
    assert_eq!(empty["pages"][0]["reached"], 0);
}

#[tokio::test]
async fn bad_bounds_are_refused_by_name_and_others_forms_are_not_found() {
    let s = setup(1).await;
    for (query, name) in [
        ("since=yesterday", "since"),
        ("until=2026-02-30T00:00:00Z", "until"),
    ] {
        let reply = s
            .app
            .get(&format!("/forms/{}/summary?{query}", s.form_id), &s.key)
            .await;
        let error = reply.error(422, "VALIDATION_ERROR");
        assert!(error.to_string().contains(name), "{query}: {error}");
    }
    let stranger = s.app.key_for("b", PRO, ALL).await;
    let path = format!("/forms/{}/summary", s.form_id);
    s.app
        .get(&path, &stranger.key)
        .await
        .error(404, "NOT_FOUND");
    s.app
        .get(
            "/forms/00000000-0000-0000-0000-000000000000/summary",
            &s.key,
        )
        .await
        .error(404, "NOT_FOUND");
    let mut client = ResponsesServiceClient::connect(s.app.grpc_url.clone())
        .await
        .expect("connecting to the core");
    let status = client
        .get_form_summary(grpc_request(
            pb::GetFormSummaryRequest {
                form_id: s.form_id.clone(),
                ..Default::default()
            },
            &stranger.key,
        ))
        .await
        .expect_err("another account's form");
    assert_eq!(status.code(), Code::NotFound);
}

/// A form with a name and a "Colour": a choice of three, or a text.
fn colour_fields(choice: bool) -> Value {
    let mut fields = json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "short_text", "label": "Colour", "required": true},
    ]);
    if choice {
        fields[1] = colour_choice(fields[1].clone());
    }
    fields
}

/// The "Colour" field `field` (its id kept) as a choice of three.
fn colour_choice(mut field: Value) -> Value {
    field["type"] = json!("single_choice");
    field["options"] = json!([{"id": "red", "label": "Red"}, {"id": "green", "label": "Green"},
                              {"id": "blue", "label": "Blue"}]);
    field
}

const COLOURS: [&str; 3] = ["red", "green", "blue"];

/// The option counts of the summary's field `index` (by option id).
fn option_counts(summary: &Value, index: usize) -> BTreeMap<String, i64> {
    summary["fields"][index]["choice"]["options"]
        .as_array()
        .unwrap_or_else(|| panic!("no choice in {}", summary["fields"][index]))
        .iter()
        .map(|o| {
            (
                o["option_id"].as_str().expect("id").to_owned(),
                o["count"].as_i64().expect("count"),
            )
        })
        .collect()
}

/// The stored responses of the form per answer of `field`, counted by SQL (every
/// option present, zero if none).
async fn counted_rows(app: &TestApp, form_id: &str, field: &str) -> BTreeMap<String, i64> {
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT answers ->> $2, count(*) FROM responses
          WHERE form_id = $1::uuid GROUP BY 1",
    )
    .bind(form_id)
    .bind(field)
    .fetch_all(&app.pool)
    .await
    .expect("counting rows");
    let mut counts: BTreeMap<String, i64> = COLOURS.iter().map(|c| ((*c).to_owned(), 0)).collect();
    counts.extend(rows);
    counts
}

/// The form's stored tally: how many responses it counts, and its counts of `field`
/// (`None` while there is none).
async fn stored_tally(app: &TestApp, form_id: &str, field: &str) -> Option<(i64, Value)> {
    let row: Option<(Option<i64>, Option<Value>)> = sqlx::query_as(
        "SELECT (tally ->> 'completed')::int8, tally -> 'fields' -> $2 -> 'values'
           FROM response_rollups WHERE form_id = $1::uuid AND tally IS NOT NULL",
    )
    .bind(form_id)
    .bind(field)
    .fetch_optional(&app.pool)
    .await
    .expect("the stored tally");
    row.and_then(|(n, values)| Some((n?, values.unwrap_or(Value::Null))))
}

#[tokio::test]
async fn two_instances_creating_while_the_rollup_runs_count_each_response_once() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
    // The writers write as fast as the machine lets them, and summaries are read as
    // often: room for both beside the plan's rate limit and the per-account cap on
    // expensive reads, which an idle machine would otherwise reach (429).
    const ROOM: &[&str] = &[
        "--pro-rate-limit",
        "1000000",
        "--reads-per-account",
        "64",
        "--reads-per-instance",
        "8",
    ];
    let a = Arc::new(TestApp::spawn_with(ROOM).await);
    let b = Arc::new(TestApp::spawn_on(a.db.clone(), ROOM).await);
    let key = a.key(PRO, ALL).await;
    let form = published_form(&a, &key, colour_fields(true), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let ids = field_ids(&form);
    let colour = ids[1].clone();

    // Creates on both instances (four writers each) until the rollups, which run on
    // both every 2 s, have stored the tally three times over while they go on.
    let stop = Arc::new(AtomicBool::new(false));
    let (started, acked) = (Arc::new(AtomicI64::new(0)), Arc::new(AtomicI64::new(0)));
    let mut writers = tokio::task::JoinSet::new();
    for worker in 0..8usize {
        let app = if worker % 2 == 0 {
            a.clone()
        } else {
            b.clone()
        };
        let (stop, started, acked) = (stop.clone(), started.clone(), acked.clone());
        let (key, ids) = (key.clone(), ids.clone());
        let path = format!("/forms/{form_id}/responses");
        writers.spawn(async move {
            let mut n = worker;
            while !stop.load(Ordering::SeqCst) {
                let body = json!({"answers": {
                    ids[0].clone(): format!("Writer {worker}"),
                    ids[1].clone(): COLOURS[n % 3],
                }});
                started.fetch_add(1, Ordering::SeqCst);
                app.post(&path, &key, &body).await.ok(201);
                acked.fetch_add(1, Ordering::SeqCst);
                n += 1;
            }
        });
    }
    // Meanwhile summaries on both: each counts the responses of one moment, so between
    // those acknowledged before it was asked and those begun by its answer.
    let path = format!("/forms/{form_id}/summary");
    let mut saves = std::collections::BTreeSet::new();
    let mut asked = 0;
    while saves.len() < 3 {
        let app = if asked % 2 == 0 { &a } else { &b };
        let low = acked.load(Ordering::SeqCst);
        let summary = app.get(&path, &key).await.ok(200)["summary"].clone();
        let high = started.load(Ordering::SeqCst);
        let completed = summary["counts"]["completed"].as_i64().expect("completed");
        assert!(
            (low..=high).contains(&completed),
            "summary {asked}: {completed} completed, not within [{low}, {high}]"
        );
        let by_option: i64 = option_counts(&summary, 1).values().sum();
        assert_eq!(by_option, completed, "summary {asked}: {summary}");
        asked += 1;
        if let Some((n, _)) = stored_tally(&a, &form_id, &colour).await
            && n > 0
            && n < high
        {
            saves.insert(n);
        }
        assert!(
            high < 20_000,
            "{high} creates and the rollup stored no tally three times: {saves:?}"
        );
    }
    stop.store(true, Ordering::SeqCst);
    while let Some(done) = writers.join_next().await {
        done.expect("writer");
    }
    let total = acked.load(Ordering::SeqCst);
    eprintln!("{total} responses created on two instances, {asked} summaries, tallies {saves:?}");

    // Once the rollup has caught up, the stored tally and both summaries count each
    // stored response once.
    let rows = counted_rows(&a, &form_id, &colour).await;
    assert_eq!(rows.values().sum::<i64>(), total);
    let stored = eventually(
        "the rollup to catch up",
        std::time::Duration::from_secs(60),
        || async {
            stored_tally(&a, &form_id, &colour)
                .await
                .filter(|(n, _)| *n == total)
        },
    )
    .await;
    let stored_values: BTreeMap<String, i64> =
        serde_json::from_value(stored.1).expect("values of the stored tally");
    assert_eq!(stored_values, rows, "the stored tally");
    for app in [&a, &b] {
        let summary = app.get(&path, &key).await.ok(200)["summary"].clone();
        assert_eq!(summary["counts"]["completed"], total);
        assert_eq!(summary["fields"][1]["answered"], total);
        assert_eq!(option_counts(&summary, 1), rows);
    }
}

#[tokio::test]
async fn a_change_of_fields_drops_the_tally_and_the_summary_follows_the_new_fields() {
    // "Colour" starts as a text field: a tally counts no values for it.
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, colour_fields(false), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let ids = field_ids(&form);
    let colour = ids[1].clone();
    let create = |n: usize| {
        let body = json!({"answers": {ids[0].clone(): "Ada", colour.clone(): COLOURS[n % 3]}});
        let (app, path, key) = (&app, format!("/forms/{form_id}/responses"), &key);
        async move {
            app.post(&path, key, &body).await.ok(201);
        }
    };
    for n in 0..7 {
        create(n).await;
    }
    let (counted, values) = eventually(
        "the tally stored",
        std::time::Duration::from_secs(30),
        || async {
            stored_tally(&app, &form_id, &colour)
                .await
                .filter(|(n, _)| *n == 7)
        },
    )
    .await;
    assert_eq!((counted, values), (7, json!({})), "text: no values counted");

    // Now a choice of the same options, under the same id: the answers are counted as
    // choices at once (the summary does not add to the text field's tally)...
    let mut fields = form["fields"].clone();
    fields[1] = colour_choice(fields[1].clone());
    let changed = app
        .put(
            &format!("/forms/{form_id}"),
            &key,
            &json!({"fields": fields}),
        )
        .await;
    assert_eq!(
        changed.ok(200)["form"]["fields"][1]["type"],
        "single_choice"
    );
    let expected = counted_rows(&app, &form_id, &colour).await;
    assert_eq!(
        expected,
        BTreeMap::from([("blue".into(), 2), ("green".into(), 2), ("red".into(), 3)])
    );
    let path = format!("/forms/{form_id}/summary");
    let summary = app.get(&path, &key).await.ok(200)["summary"].clone();
    assert_eq!(option_counts(&summary, 1), expected, "{summary}");

    // ...and the tally the rollup rebuilds counts them so too, with what comes after.
    let (counted, values) = eventually(
        "the tally rebuilt",
        std::time::Duration::from_secs(30),
        || async {
            stored_tally(&app, &form_id, &colour)
                .await
                .filter(|(n, _)| *n == 7)
        },
    )
    .await;
    assert_eq!(counted, 7);
    assert_eq!(values, json!({"blue": 2, "green": 2, "red": 3}));
    create(7).await;
    let summary = app.get(&path, &key).await.ok(200)["summary"].clone();
    assert_eq!(summary["counts"]["completed"], 8);
    assert_eq!(
        option_counts(&summary, 1),
        BTreeMap::from([("blue".into(), 2), ("green".into(), 3), ("red".into(), 3)])
    );
}
