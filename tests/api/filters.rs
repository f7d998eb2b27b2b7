//! Finding responses: `q`, `answers[<field>][<op>]`, `source`, `device_type`, `browser`
//! and `os` on the list (page and cursor mode), the export and the summary, each case
//! against a plain computation in this test over the same seeded responses (exact ids,
//! in order); bad filters refused naming the parameter; keyset paging with a filter
//! while responses arrive; another account's form; and the summary's stored tally
//! (rollup) giving the same figures as a full read, dropped by a delete.

use crate::fixtures::*;
use crate::harness::*;
use forms::pb::{self, responses_service_client::ResponsesServiceClient};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashSet};

fn fields() -> Value {
    json!([
        {"type": "short_text", "ref": "name", "label": "Name"},
        {"type": "email", "ref": "email", "label": "Email"},
        {"type": "phone", "ref": "phone", "label": "Phone"},
        {"type": "single_choice", "ref": "colour", "label": "Colour",
         "options": [{"id": "red", "label": "Red"}, {"id": "green", "label": "Green"},
                     {"id": "blue", "label": "Blue"}]},
        {"type": "multiple_choice", "ref": "toppings", "label": "Toppings",
         "options": [{"id": "ham", "label": "Ham"}, {"id": "egg", "label": "Egg"},
                     {"id": "kale", "label": "Kale"}]},
        {"type": "rating", "ref": "stars", "label": "Stars", "max": 5},
        {"type": "number", "ref": "amount", "label": "Amount"},
        {"type": "date", "ref": "day", "label": "Day"},
        {"type": "checkbox", "ref": "consent", "label": "Consent"},
    ])
}

const NAMES: [&str; 6] = [
    "Ada Lovelace",
    "José Martínez",
    "Grace Hopper",
    "Zoë 50%_off",
    "lovelace fan",
    "Ärger Ölmann",
];

/// A response as the test made it.
#[derive(Clone, Debug)]
struct Made {
    id: String,
    answers: Map<String, Value>,
    form: bool,
    device: Option<&'static str>,
    browser: Option<&'static str>,
}

struct Setup {
    app: TestApp,
    key: String,
    form_id: String,
    /// Field ids by ref.
    ids: BTreeMap<String, String>,
    /// Oldest first.
    made: Vec<Made>,
}

fn answers(rng: &mut Rng, ids: &BTreeMap<String, String>, n: usize) -> Map<String, Value> {
    let mut a = Map::new();
    let mut put = |r: &str, v: Value| {
        a.insert(ids[r].clone(), v);
    };
    if rng.below(6) > 0 {
        put("name", json!(NAMES[rng.below(6) as usize]));
    }
    if rng.below(3) > 0 {
        put("email", json!(format!("person{}@example.com", n % 7)));
    }
    if rng.below(2) > 0 {
        put("phone", json!(format!("+4420794600{:02}", n % 13)));
    }
    if rng.below(5) > 0 {
        put(
            "colour",
            json!(["red", "green", "blue"][rng.below(3) as usize]),
        );
    }
    let toppings: Vec<&str> = ["ham", "egg", "kale"]
        .into_iter()
        .filter(|_| rng.below(2) == 0)
        .collect();
    if !toppings.is_empty() {
        put("toppings", json!(toppings));
    }
    if rng.below(4) > 0 {
        put("stars", json!(1 + rng.below(5)));
    }
    if rng.below(4) > 0 {
        put("amount", json!(rng.below(400) as f64 / 4.0 - 20.0));
    }
    if rng.below(4) > 0 {
        put(
            "day",
            json!(format!("2026-0{}-1{}", 1 + rng.below(9), rng.below(10))),
        );
    }
    if rng.below(3) > 0 {
        put("consent", json!(rng.below(2) == 0));
    }
    a
}

async fn setup(count: usize) -> Setup {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let ids: BTreeMap<String, String> = form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| {
            (
                f["ref"].as_str().expect("ref").to_owned(),
                f["id"].as_str().expect("id").to_owned(),
            )
        })
        .collect();
    let mut rng = Rng(7);
    let mut made = Vec::new();
    for n in 0..count {
        let a = answers(&mut rng, &ids, n);
        let reply = app
            .post(
                &format!("/forms/{form_id}/responses"),
                &key,
                &json!({"answers": a}),
            )
            .await;
        let id = reply.ok(201)["response"]["id"]
            .as_str()
            .expect("id")
            .to_owned();
        // Every third one as if from the hosted page: no source, a device.
        let form = n % 3 == 0;
        let device = form.then(|| ["mobile", "desktop"][n % 2]);
        let browser = form.then(|| ["Chrome", "Firefox", "Safari"][n / 3 % 3]);
        if form {
            sqlx::query(
                "UPDATE responses SET metadata = '{}', device_type = $2, browser = $3
                  WHERE id = $1::uuid",
            )
            .bind(&id)
            .bind(device)
            .bind(browser)
            .execute(&app.pool)
            .await
            .expect("as from a page");
        }
        made.push(Made {
            id,
            answers: reply.ok(201)["response"]["answers"]
                .as_object()
                .expect("answers")
                .clone(),
            form,
            device,
            browser,
        });
    }
    restart_tally(&app, &form_id).await;
    Setup {
        app,
        key,
        form_id,
        ids,
        made,
    }
}

fn fold(s: &str) -> String {
    s.to_lowercase()
        .replace(['é', 'è'], "e")
        .replace('í', "i")
        .replace('ë', "e")
        .replace('ä', "a")
        .replace('ö', "o")
}

impl Setup {
    fn answer(&self, m: &Made, r: &str) -> Option<Value> {
        m.answers
            .get(&self.ids[r])
            .filter(|v| !v.is_null())
            .cloned()
    }

    /// The ids of the responses `keep` selects, newest first (the list's default order).
    fn expect(&self, keep: impl Fn(&Made) -> bool) -> Vec<String> {
        self.made
            .iter()
            .rev()
            .filter(|m| keep(m))
            .map(|m| m.id.clone())
            .collect()
    }

    /// Every id the list gives for `query`, walking cursor pages of 7.
    async fn listed(&self, query: &str) -> Vec<String> {
        let mut ids = Vec::new();
        let mut cursor = String::new();
        loop {
            let reply = self
                .app
                .get(
                    &format!(
                        "/forms/{}/responses?per_page=7&cursor={cursor}&{query}",
                        self.form_id
                    ),
                    &self.key,
                )
                .await;
            let data = reply.ok(200);
            for r in data["responses"].as_array().expect("responses") {
                ids.push(r["id"].as_str().expect("id").to_owned());
            }
            match data["pagination"]["next_cursor"].as_str() {
                Some(next) => cursor = next.to_owned(),
                None => return ids,
            }
        }
    }

    /// The page-mode total for `query`.
    async fn total(&self, query: &str) -> i64 {
        let reply = self
            .app
            .get(
                &format!("/forms/{}/responses?per_page=5&{query}", self.form_id),
                &self.key,
            )
            .await;
        reply.ok(200)["pagination"]["total"]
            .as_i64()
            .expect("total")
    }
}

fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[tokio::test]
async fn each_filter_and_their_combinations_select_exactly_what_a_plain_reading_does() {
    let s = setup(90).await;
    let text = |m: &Made, r: &str| s.answer(m, r).and_then(|v| v.as_str().map(str::to_owned));
    let num = |m: &Made, r: &str| s.answer(m, r).and_then(|v| v.as_f64());
    let any_text = |m: &Made, needle: &str| {
        m.answers.values().any(|v| {
            let flat = match v {
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().unwrap_or_default().to_owned())
                    .collect::<Vec<_>>()
                    .join("\n"),
                Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            fold(&flat).contains(&fold(needle))
        })
    };
    type Case<'a> = (String, Box<dyn Fn(&Made) -> bool + 'a>);
    let cases: Vec<Case> = vec![
        // A part of a word, ignoring case and accents.
        ("q=lovel".into(), Box::new(|m: &Made| any_text(m, "lovel"))),
        ("q=JOSE".into(), Box::new(|m: &Made| any_text(m, "jose"))),
        (
            "q=olmann".into(),
            Box::new(|m: &Made| any_text(m, "ölmann")),
        ),
        // LIKE's wildcards are plain characters.
        (
            format!("q={}", enc("50%_")),
            Box::new(|m: &Made| any_text(m, "50%_")),
        ),
        // An email in full: only that answer, not one that merely contains it.
        (
            "q=person1@example.com".into(),
            Box::new(|m: &Made| text(m, "email").as_deref() == Some("person1@example.com")),
        ),
        // A phone as typed, international or national.
        (
            format!("q={}", enc("+44 20 7946 0005")),
            Box::new(|m: &Made| text(m, "phone").as_deref() == Some("+442079460005")),
        ),
        (
            format!("q={}", enc("020 7946 0012")),
            Box::new(|m: &Made| text(m, "phone").as_deref() == Some("+442079460012")),
        ),
        // Answers, by ref and by id.
        (
            "answers[colour][eq]=Red".into(),
            Box::new(|m: &Made| text(m, "colour").as_deref() == Some("red")),
        ),
        (
            format!("answers[{}][in]=green,blue", s.ids["colour"]),
            Box::new(|m: &Made| matches!(text(m, "colour").as_deref(), Some("green" | "blue"))),
        ),
        (
            "answers[toppings][eq]=kale".into(),
            Box::new(|m: &Made| {
                s.answer(m, "toppings")
                    .is_some_and(|v| v.as_array().is_some_and(|a| a.contains(&json!("kale"))))
            }),
        ),
        (
            "answers[name][eq]=ada%20LOVELACE".into(),
            Box::new(|m: &Made| text(m, "name").as_deref() == Some("Ada Lovelace")),
        ),
        (
            "answers[name][contains]=lovelace".into(),
            Box::new(|m: &Made| text(m, "name").is_some_and(|n| fold(&n).contains("lovelace"))),
        ),
        (
            "answers[email][answered]=false".into(),
            Box::new(|m: &Made| s.answer(m, "email").is_none()),
        ),
        (
            "answers[phone][answered]=true".into(),
            Box::new(|m: &Made| s.answer(m, "phone").is_some()),
        ),
        (
            "answers[stars][gte]=4".into(),
            Box::new(|m: &Made| num(m, "stars").is_some_and(|n| n >= 4.0)),
        ),
        (
            "answers[amount][gt]=10.5&answers[amount][lte]=50".into(),
            Box::new(|m: &Made| num(m, "amount").is_some_and(|n| n > 10.5 && n <= 50.0)),
        ),
        (
            "answers[amount][lt]=-10".into(),
            Box::new(|m: &Made| num(m, "amount").is_some_and(|n| n < -10.0)),
        ),
        (
            "answers[day][gte]=2026-03-01&answers[day][lt]=2026-06-15".into(),
            Box::new(|m: &Made| {
                text(m, "day")
                    .is_some_and(|d| d.as_str() >= "2026-03-01" && d.as_str() < "2026-06-15")
            }),
        ),
        (
            "answers[consent][eq]=true".into(),
            Box::new(|m: &Made| s.answer(m, "consent") == Some(json!(true))),
        ),
        // Metadata.
        ("source=api".into(), Box::new(|m: &Made| !m.form)),
        ("source=form".into(), Box::new(|m: &Made| m.form)),
        (
            "device_type=MOBILE".into(),
            Box::new(|m: &Made| m.device == Some("mobile")),
        ),
        (
            "browser=firefox".into(),
            Box::new(|m: &Made| m.browser == Some("Firefox")),
        ),
        // Combinations.
        (
            "q=lovel&answers[stars][gte]=3&source=api".into(),
            Box::new(|m: &Made| {
                any_text(m, "lovel") && num(m, "stars").is_some_and(|n| n >= 3.0) && !m.form
            }),
        ),
        (
            "answers[colour][eq]=blue&answers[consent][answered]=true&device_type=desktop".into(),
            Box::new(|m: &Made| {
                text(m, "colour").as_deref() == Some("blue")
                    && s.answer(m, "consent").is_some()
                    && m.device == Some("desktop")
            }),
        ),
    ];
    let mut matched_some = 0;
    for (query, keep) in &cases {
        let want = s.expect(keep);
        assert!(
            want.len() < s.made.len(),
            "{query} selects everything: not a test"
        );
        matched_some += usize::from(!want.is_empty());
        assert_eq!(s.listed(query).await, want, "cursor pages of {query}");
        assert_eq!(
            s.total(query).await,
            want.len() as i64,
            "page-mode total of {query}"
        );
        // Oldest first, too.
        let mut asc = want.clone();
        asc.reverse();
        assert_eq!(
            s.listed(&format!("{query}&sort=asc")).await,
            asc,
            "asc {query}"
        );
    }
    assert!(
        matched_some >= cases.len() - 1,
        "most cases select something"
    );

    // With a window: the filter and since/until together.
    let window_from = &s.made[30].id;
    let since = s
        .app
        .get(
            &format!("/forms/{}/responses/{window_from}", s.form_id),
            &s.key,
        )
        .await
        .ok(200)["response"]["submitted_at"]
        .as_str()
        .expect("at")
        .to_owned();
    let after: HashSet<String> = s.made[31..].iter().map(|m| m.id.clone()).collect();
    let want: Vec<String> = s
        .expect(|m| text(m, "colour").as_deref() == Some("red"))
        .into_iter()
        .filter(|id| after.contains(id))
        .collect();
    assert_eq!(
        s.listed(&format!("answers[colour][eq]=red&since={}", enc(&since)))
            .await,
        want
    );

    // The export carries the same filters: "download what I see".
    let query = "answers[stars][gte]=4&source=api";
    let reply = send(
        s.app
            .request(
                Method::GET,
                &format!(
                    "/forms/{}/responses/export?format=ndjson&{query}",
                    s.form_id
                ),
            )
            .header("x-api-key", &s.key),
    )
    .await;
    assert_eq!(reply.status, 200);
    let exported: Vec<String> = reply
        .text
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("line")["id"]
                .as_str()
                .expect("id")
                .to_owned()
        })
        .collect();
    let mut want = s.expect(|m| num(m, "stars").is_some_and(|n| n >= 4.0) && !m.form);
    want.reverse();
    assert!(!want.is_empty());
    assert_eq!(exported, want, "export of {query}");

    // The summary of what is filtered: its counts and option bars.
    let reply = s
        .app
        .get(
            &format!("/forms/{}/summary?answers[colour][in]=red,green", s.form_id),
            &s.key,
        )
        .await;
    let summary = reply.ok(200)["summary"].clone();
    let chosen: Vec<&Made> = s
        .made
        .iter()
        .filter(|m| matches!(text(m, "colour").as_deref(), Some("red" | "green")))
        .collect();
    assert_eq!(summary["counts"]["completed"], chosen.len() as i64);
    let colour = summary["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f["field_id"] == s.ids["colour"].as_str())
        .expect("colour")
        .clone();
    let bars: Vec<i64> = colour["choice"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| o["count"].as_i64().expect("count"))
        .collect();
    let count = |c: &str| {
        chosen
            .iter()
            .filter(|m| text(m, "colour").as_deref() == Some(c))
            .count() as i64
    };
    assert_eq!(bars, [count("red"), count("green"), 0]);

    // gRPC takes the same filter.
    let mut client = ResponsesServiceClient::connect(s.app.grpc_url.clone())
        .await
        .expect("connecting");
    let reply = client
        .list_responses(grpc_request(
            pb::ListResponsesRequest {
                form_id: s.form_id.clone(),
                per_page: Some(100),
                filter: Some(pb::ResponseFilter {
                    q: "lovel".into(),
                    answers: vec![pb::AnswerFilter {
                        field: "stars".into(),
                        operator: pb::AnswerOperator::AtLeast.into(),
                        values: vec!["2".into()],
                    }],
                    ..Default::default()
                }),
                ..Default::default()
            },
            &s.key,
        ))
        .await
        .expect("filtered list over gRPC")
        .into_inner();
    let ids: Vec<String> = reply.responses.into_iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        s.expect(|m| any_text(m, "lovel") && num(m, "stars").is_some_and(|n| n >= 2.0))
    );
}

#[tokio::test]
async fn a_bad_filter_is_a_validation_error_naming_it() {
    let s = setup(1).await;
    for (query, needle) in [
        ("answers[nope][eq]=1", "answers[nope][eq] names no field"),
        (
            "answers[stars][gte]=9",
            "answers[stars][gte] must be a whole number from 1 to 5",
        ),
        (
            "answers[stars][gte]=many",
            "answers[stars][gte] must be a number",
        ),
        (
            "answers[name][gt]=a",
            "answers[name][gt] does not apply to short_text",
        ),
        (
            "answers[colour][eq]=purple",
            "answers[colour][eq] must be one of the field's options",
        ),
        (
            "answers[day][lt]=tomorrow",
            "answers[day][lt] must be a date written YYYY-MM-DD",
        ),
        (
            "answers[stars][near]=1",
            "the operator must be eq, in, contains, answered",
        ),
        ("answers[stars][answered]=maybe", "must be true or false"),
        ("source=web", "source must be api or form"),
    ] {
        for path in ["responses", "summary", "responses/export"] {
            let reply = s
                .app
                .get(&format!("/forms/{}/{path}?{query}", s.form_id), &s.key)
                .await;
            let error = reply.error(422, "VALIDATION_ERROR");
            let message = error["message"].as_str().expect("message");
            assert!(message.contains(needle), "{path}?{query}: {message}");
        }
    }
    let long = "x".repeat(201);
    let reply = s
        .app
        .get(&format!("/forms/{}/responses?q={long}", s.form_id), &s.key)
        .await;
    reply.error(422, "VALIDATION_ERROR");
}

#[tokio::test]
async fn another_accounts_form_is_not_found_with_filters_too() {
    let s = setup(2).await;
    let other = s.app.key(PRO, ALL).await;
    for path in [
        "responses?q=lovel",
        "responses?answers[stars][gte]=1",
        "summary?q=lovel",
        "summary?answers[colour][eq]=red",
        "responses/export?q=a",
    ] {
        let reply = s
            .app
            .get(&format!("/forms/{}/{path}", s.form_id), &other)
            .await;
        reply.error(404, "NOT_FOUND");
    }
}

#[tokio::test]
async fn keyset_pages_with_a_filter_skip_and_repeat_nothing_while_responses_arrive() {
    let s = setup(40).await;
    let before = s.expect(|m| {
        s.answer(m, "stars")
            .is_some_and(|v| v.as_f64() >= Some(3.0))
    });
    // A writer adds matching and other responses while a reader walks oldest first.
    let stars = s.ids["stars"].clone();
    let writer = async {
        let mut added = Vec::new();
        for n in 0..60 {
            let reply = s
                .app
                .post(
                    &format!("/forms/{}/responses", s.form_id),
                    &s.key,
                    &json!({"answers": {stars.clone(): 1 + n % 5}}),
                )
                .await;
            let id = reply.ok(201)["response"]["id"]
                .as_str()
                .expect("id")
                .to_owned();
            if 1 + n % 5 >= 3 {
                added.push(id);
            }
        }
        added
    };
    let reader = async {
        let mut seen = Vec::new();
        let mut cursor = String::new();
        loop {
            let reply = s
                .app
                .get(
                    &format!(
                        "/forms/{}/responses?per_page=3&sort=asc&answers[stars][gte]=3&cursor={cursor}",
                        s.form_id
                    ),
                    &s.key,
                )
                .await;
            let data = reply.ok(200).clone();
            seen.extend(
                data["responses"]
                    .as_array()
                    .expect("responses")
                    .iter()
                    .map(|r| r["id"].as_str().expect("id").to_owned()),
            );
            match data["pagination"]["next_cursor"].as_str() {
                Some(next) => cursor = next.to_owned(),
                None => return seen,
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    let (added, seen) = tokio::join!(writer, reader);
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no response twice");
    // Every match that existed before is there, oldest first, before anything newer.
    let mut old: Vec<String> = before.clone();
    old.reverse();
    assert_eq!(seen[..old.len()], old[..], "the earlier matches, in order");
    // What arrived during the walk is a prefix of the new matches, in order.
    let new = &seen[old.len()..];
    assert_eq!(
        new,
        &added[..new.len()],
        "new matches in order, none skipped"
    );
}

#[tokio::test]
async fn the_stored_tally_plus_the_responses_since_equals_a_full_read_and_a_delete_restarts_it() {
    let s = setup(30).await;
    let path = format!("/forms/{}/summary", s.form_id);
    // Nothing tallied yet (or only part): the figures read from the responses.
    let full = s.app.get(&path, &s.key).await.ok(200)["summary"].clone();
    // A rollup, then more responses after it: tally + the rest.
    while forms::responses::rollup::round(&s.app.pool)
        .await
        .expect("rollup")
        > 0
    {}
    let stored: Option<i64> = sqlx::query_scalar(
        "SELECT (tally ->> 'completed')::bigint FROM response_rollups WHERE form_id = $1::uuid",
    )
    .bind(&s.form_id)
    .fetch_one(&s.app.pool)
    .await
    .expect("stored tally");
    assert_eq!(stored, Some(30), "the rollup tallied every response");
    assert_eq!(s.app.get(&path, &s.key).await.ok(200)["summary"], full);
    let stars = s.ids["stars"].clone();
    for n in 0..5 {
        s.app
            .post(
                &format!("/forms/{}/responses", s.form_id),
                &s.key,
                &json!({"answers": {stars.clone(): 1 + n}}),
            )
            .await
            .ok(201);
    }
    let with_more = s.app.get(&path, &s.key).await.ok(200)["summary"].clone();
    assert_eq!(with_more["counts"]["completed"], 35);
    // The same figures as a reading that can not use the tally (a window that holds
    // everything).
    let windowed = s
        .app
        .get(&format!("{path}?since=2000-01-01T00:00:00Z"), &s.key)
        .await
        .ok(200)["summary"]
        .clone();
    assert_eq!(with_more, windowed, "tally + newer responses = a full read");
    // A delete drops the tally; the figures stay exact.
    let gone = &s.made[0].id;
    let reply = send(
        s.app
            .request(
                Method::DELETE,
                &format!("/forms/{}/responses/{gone}", s.form_id),
            )
            .header("x-api-key", &s.key),
    )
    .await;
    assert_eq!(reply.status, 204);
    let stored: Option<Value> =
        sqlx::query_scalar("SELECT tally FROM response_rollups WHERE form_id = $1::uuid")
            .bind(&s.form_id)
            .fetch_one(&s.app.pool)
            .await
            .expect("rollup row");
    assert_eq!(stored, None, "a delete restarts the tally");
    let after = s.app.get(&path, &s.key).await.ok(200)["summary"].clone();
    assert_eq!(after["counts"]["completed"], 34);
    while forms::responses::rollup::round(&s.app.pool)
        .await
        .expect("rollup")
        > 0
    {}
    assert_eq!(s.app.get(&path, &s.key).await.ok(200)["summary"], after);
}

#[tokio::test]
async fn the_search_text_is_folded_alike_in_rust_and_in_postgresql() {
    let db = TestDb::create().await;
    let pool = db.pool().await;
    let samples = [
        "José Martínez",
        "ÆRØ Łódź Ünïcode Ğ İstanbul ı",
        "Straße ŁĄCZKA Đorđe Ħamrun ŧ",
        "Ελληνικά ΣΟΦΙΑ Кириллица ÉCOLE",
        "ｆｕｌｌ ｗｉｄｔｈ ﬁ ligature 50%_off \\ \"quoted\"",
        "",
    ];
    for sample in samples {
        let sql: String = sqlx::query_scalar("SELECT forms_fold($1)")
            .bind(sample)
            .fetch_one(&pool)
            .await
            .expect("forms_fold");
        assert_eq!(sql, forms::responses::search::fold(sample), "{sample}");
    }
    let answers = json!({"a": samples[0], "b": [samples[1], {"other": samples[2]}],
                         "c": 4.5, "d": -12, "e": true, "f": null, "g": samples[3]});
    let sql: String = sqlx::query_scalar("SELECT forms_search_text($1)")
        .bind(&answers)
        .fetch_one(&pool)
        .await
        .expect("forms_search_text");
    assert_eq!(
        sql,
        forms::responses::search::text_of(answers.as_object().expect("object"))
    );
}

#[tokio::test]
async fn partial_responses_are_searched_on_what_they_saved_when_asked_for() {
    let s = setup(4).await;
    let partial: String = sqlx::query_scalar(
        "INSERT INTO partial_responses (id, form_id, resume_digest, answers, page, started_at,
                                        saved_at, updated_at)
         VALUES (gen_random_uuid(), $1::uuid, sha256(gen_random_uuid()::text::bytea),
                 jsonb_build_object($2::text, 'Unfinished Ñandú'), 1, now(), now(), now())
         RETURNING id::text",
    )
    .bind(&s.form_id)
    .bind(&s.ids["name"])
    .fetch_one(&s.app.pool)
    .await
    .expect("a partial response");
    for (query, want) in [
        ("q=nandu", vec![]),
        ("q=nandu&status=partial", vec![partial.clone()]),
        ("q=NANDU&status=all", vec![partial.clone()]),
        (
            "answers[name][contains]=unfinished&status=all",
            vec![partial.clone()],
        ),
        ("source=api&status=all&q=nandu", vec![]),
    ] {
        assert_eq!(s.listed(query).await, want, "{query}");
    }
}
