//! The new field kinds in the hosted page (`/f/{short_id}`): each drawn as its HTML
//! control with a label, a urlencoded submission decoded into the answers the core
//! stores, a refused value shown beside its field with the entries kept, and prefill
//! from the page's URL query.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::{DESKTOP, Page, Visitor};
use serde_json::{Value, json};

/// A form with one field of every new kind, published; and its field ids by label.
struct Kinds {
    app: TestApp,
    key: String,
    form: Value,
}

fn kind_fields() -> Value {
    json!([
        {"type": "single_choice", "label": "Colour", "required": true, "allow_other": true,
         "options": [{"label": "Red"}, {"label": "Green"}, {"label": "Blue"}]},
        {"type": "dropdown", "label": "Country",
         "options": [{"label": "France"}, {"label": "Japan"}]},
        {"type": "multiple_choice", "label": "Toppings", "allow_other": true,
         "options": [{"label": "Cheese"}, {"label": "Ham"}, {"label": "Olives"}]},
        {"type": "rating", "label": "Stars", "max": 4},
        {"type": "scale", "label": "Recommend", "min": 0, "max": 10,
         "min_label": "Not likely", "max_label": "Very likely"},
        {"type": "date", "label": "Arrival", "min": "2026-01-01", "max": "2026-12-31"},
        {"type": "url", "label": "Website"},
        {"type": "phone", "label": "Phone"},
        {"type": "checkbox", "label": "I agree", "required": true},
        {"type": "hidden", "label": "utm_source"},
    ])
}

impl Kinds {
    async fn new() -> Kinds {
        let app = TestApp::spawn().await;
        let key = app.key(PRO, ALL).await;
        let form = published_form(&app, &key, kind_fields(), Value::Null).await;
        Kinds { app, key, form }
    }

    fn short_id(&self) -> String {
        self.form["short_id"].as_str().expect("short id").to_owned()
    }

    fn field(&self, label: &str) -> &Value {
        self.form["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .find(|f| f["label"] == label)
            .unwrap_or_else(|| panic!("field {label}"))
    }

    fn id(&self, label: &str) -> String {
        self.field(label)["id"]
            .as_str()
            .expect("field id")
            .to_owned()
    }

    fn option(&self, label: &str, option: &str) -> String {
        self.field(label)["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["label"] == option)
            .and_then(|o| o["id"].as_str())
            .unwrap_or_else(|| panic!("option {option}"))
            .to_owned()
    }

    async fn responses(&self) -> Vec<Value> {
        let id = self.form["id"].as_str().expect("form id");
        self.app
            .get(&format!("/forms/{id}/responses"), &self.key)
            .await
            .ok(200)["responses"]
            .as_array()
            .expect("responses")
            .clone()
    }
}

/// The opening tag of the element whose `id` attribute is `id`.
fn tag<'a>(page: &'a Page, id: &str) -> &'a str {
    let at = page
        .html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element {id} in {}", page.html));
    let start = page.html[..at].rfind('<').expect("tag start");
    let end = at + page.html[at..].find('>').expect("tag end");
    &page.html[start..=end]
}

#[tokio::test]
async fn every_kind_is_drawn_as_its_control_with_a_label() {
    let k = Kinds::new().await;
    let mut visitor = Visitor::new(&k.app);
    let page = visitor.open(&k.short_id()).await;
    assert_eq!(page.status, 200);
    let html = &page.html;

    // Single choice: radios in a fieldset with a legend, each labelled, plus "Other".
    let colour = k.id("Colour");
    assert!(html.contains(&format!("<fieldset class=\"field\" id=\"f-{colour}\"")));
    assert!(html.contains("<legend>Colour"));
    let red = tag(&page, &format!("f-{colour}-0"));
    assert!(red.contains("type=\"radio\"") && red.contains(&format!("name=\"{colour}:one\"")));
    assert!(red.contains(&format!("value=\"{}\"", k.option("Colour", "Red"))));
    assert!(html.contains(&format!("<label class=\"opt\" for=\"f-{colour}-0\">")));
    assert!(tag(&page, &format!("f-{colour}-other")).contains("type=\"radio\""));
    // "Other"'s box has a label of its own (the style sheet shows both once "Other" is chosen).
    assert!(html.contains(&format!(
        "<label for=\"f-{colour}-other-text\">Other (please specify)</label>"
    )));

    // Dropdown: a labelled select with an empty first choice.
    let country = k.id("Country");
    assert!(tag(&page, &format!("f-{country}")).starts_with("<select"));
    assert!(html.contains(&format!("<label for=\"f-{country}\">Country")));
    assert!(html.contains("<option value=\"\">Choose…</option>"));

    // Multiple choice: checkboxes in a fieldset.
    let toppings = k.id("Toppings");
    assert!(html.contains("<legend>Toppings"));
    for n in 0..3 {
        let tag = tag(&page, &format!("f-{toppings}-{n}"));
        assert!(tag.contains("type=\"checkbox\"") && tag.contains(":many\""));
    }

    // Rating: radios 1..4 drawn as stars, named in words; scale: 0..10 with the end labels.
    let stars = k.id("Stars");
    assert!(tag(&page, &format!("f-{stars}-3")).contains("value=\"4\""));
    assert!(
        html.contains("<span class=\"sr\">4 stars</span>")
            && html.contains("<span class=\"sr\">1 star</span>")
    );
    assert!(!html.contains("5 stars"));
    let recommend = k.id("Recommend");
    assert!(tag(&page, &format!("f-{recommend}-10")).contains("type=\"radio\""));
    assert!(
        html.contains("0<span class=\"sr\"> (Not likely)</span></label>")
            && html.contains("10<span class=\"sr\"> (Very likely)</span></label>")
    );

    // Date, url, phone: their input types, labelled, with the date's bounds.
    let arrival = tag(&page, &format!("f-{}", k.id("Arrival")));
    assert!(arrival.contains("type=\"date\""));
    assert!(arrival.contains("min=\"2026-01-01\"") && arrival.contains("max=\"2026-12-31\""));
    assert!(tag(&page, &format!("f-{}", k.id("Website"))).contains("type=\"url\""));
    let phone = tag(&page, &format!("f-{}", k.id("Phone")));
    assert!(phone.contains("type=\"tel\"") && phone.contains("autocomplete=\"tel\""));
    for label in ["Arrival", "Website", "Phone"] {
        assert!(html.contains(&format!("<label for=\"f-{}\">{label}", k.id(label))));
    }

    // Checkbox: one box inside its label; hidden: an input never shown, no label.
    let agree = k.id("I agree");
    let box_tag = tag(&page, &format!("f-{agree}"));
    assert!(box_tag.contains("type=\"checkbox\"") && box_tag.contains("required"));
    assert!(html.contains(&format!("<label class=\"check\" for=\"f-{agree}\">")));
    let utm = k.id("utm_source");
    assert!(html.contains(&format!(
        "<input type=\"hidden\" name=\"{utm}\" value=\"\">"
    )));
    assert!(
        !html.contains(">utm_source"),
        "a hidden field shows no label"
    );
}

#[tokio::test]
async fn a_submission_is_stored_as_the_kinds_answers_and_a_bad_value_keeps_the_entries() {
    let k = Kinds::new().await;
    let mut visitor = Visitor::new(&k.app);
    let (colour, toppings, agree) = (k.id("Colour"), k.id("Toppings"), k.id("I agree"));
    let green = k.option("Colour", "Green");
    let japan = k.option("Country", "Japan");
    let (cheese, olives) = (
        k.option("Toppings", "Cheese"),
        k.option("Toppings", "Olives"),
    );

    // A bad value first: the date is outside its bounds, the url is not one.
    let page = visitor.open(&k.short_id()).await;
    let token = page.token();
    let names = [
        format!("{colour}:one"),
        format!("{}:one", k.id("Country")),
        format!("{toppings}:many"),
        format!("{toppings}:many"),
        format!("{toppings}:other"),
        format!("{}:int", k.id("Stars")),
        format!("{}:int", k.id("Recommend")),
        k.id("Arrival"),
        k.id("Website"),
        k.id("Phone"),
        format!("{agree}:bool"),
        k.id("utm_source"),
    ];
    let bad = [
        green.as_str(),
        japan.as_str(),
        cheese.as_str(),
        "_other",
        "Pineapple",
        "3",
        "9",
        "2030-05-01",
        "not a url",
        "+33 6 12 34 56 78",
        "true",
        "mail",
    ];
    let mut fields: Vec<(&str, &str)> = vec![("_token", &token)];
    fields.extend(names.iter().map(String::as_str).zip(bad));
    let page = visitor.submit(&k.short_id(), DESKTOP, &fields).await;
    assert_eq!(page.status, 422, "{}", page.html);
    let arrival = k.id("Arrival");
    assert!(
        page.html
            .contains(&format!("<p class=\"error\" id=\"e-{arrival}\">"))
    );
    assert!(tag(&page, &format!("f-{arrival}")).contains("aria-invalid=\"true\""));
    assert!(
        page.html
            .contains(&format!("<p class=\"error\" id=\"e-{}\">", k.id("Website")))
    );
    // The entries are kept, each in its control.
    assert!(tag(&page, &format!("f-{colour}-1")).contains(" checked"));
    assert!(
        page.html
            .contains(&format!("<option value=\"{japan}\" selected>Japan"))
    );
    assert!(tag(&page, &format!("f-{toppings}-0")).contains(" checked"));
    assert!(!tag(&page, &format!("f-{toppings}-1")).contains(" checked"));
    assert!(tag(&page, &format!("f-{toppings}-other")).contains(" checked"));
    assert!(tag(&page, &format!("f-{toppings}-other-text")).contains("value=\"Pineapple\""));
    assert!(tag(&page, &format!("f-{}-2", k.id("Stars"))).contains(" checked"));
    assert!(tag(&page, &format!("f-{}-9", k.id("Recommend"))).contains(" checked"));
    assert!(tag(&page, &format!("f-{arrival}")).contains("value=\"2030-05-01\""));
    assert!(tag(&page, &format!("f-{agree}")).contains(" checked"));
    assert!(
        page.html
            .contains(&format!("name=\"{}\" value=\"mail\"", k.id("utm_source")))
    );
    assert!(k.responses().await.is_empty());

    // Fixed: stored as the core's answers.
    let token = page.token();
    let mut good = bad;
    good[7] = "2026-05-01";
    good[8] = "https://example.com/";
    let mut fields: Vec<(&str, &str)> = vec![("_token", &token)];
    fields.extend(names.iter().map(String::as_str).zip(good));
    fields[4].1 = olives.as_str();
    let page = visitor.submit(&k.short_id(), DESKTOP, &fields).await;
    assert_eq!(page.status, 200, "{}", page.html);
    let responses = k.responses().await;
    assert_eq!(responses.len(), 1);
    let answers = &responses[0]["answers"];
    assert_eq!(answers[&colour], json!(green));
    assert_eq!(answers[k.id("Country")], json!(japan));
    assert_eq!(
        answers[&toppings],
        json!([cheese, olives, {"other": "Pineapple"}])
    );
    assert_eq!(answers[k.id("Stars")], json!(3));
    assert_eq!(answers[k.id("Recommend")], json!(9));
    assert_eq!(answers[&arrival], json!("2026-05-01"));
    assert_eq!(answers[k.id("Website")], json!("https://example.com/"));
    assert_eq!(answers[k.id("Phone")], json!("+33612345678"));
    assert_eq!(answers[&agree], json!(true));
    assert_eq!(answers[k.id("utm_source")], json!("mail"));
}

#[tokio::test]
async fn an_unticked_required_consent_box_is_refused_beside_it() {
    let k = Kinds::new().await;
    let mut visitor = Visitor::new(&k.app);
    let token = visitor.open(&k.short_id()).await.token();
    let colour = format!("{}:one", k.id("Colour"));
    let other = format!("{}:other", k.id("Colour"));
    let fields = [
        ("_token", token.as_str()),
        (&colour, "_other"),
        (&other, "Teal"),
    ];
    let page = visitor.submit(&k.short_id(), DESKTOP, &fields).await;
    assert_eq!(page.status, 422, "{}", page.html);
    let agree = k.id("I agree");
    assert!(
        page.html
            .contains(&format!("<p class=\"error\" id=\"e-{agree}\">"))
    );
    assert!(!tag(&page, &format!("f-{agree}")).contains(" checked"));
    // "Other" stays chosen with its text.
    let colour = k.id("Colour");
    assert!(tag(&page, &format!("f-{colour}-other")).contains(" checked"));
    assert!(tag(&page, &format!("f-{colour}-other-text")).contains("value=\"Teal\""));
}

#[tokio::test]
async fn the_url_query_prefills_fields_and_a_hidden_value_is_stored() {
    let k = Kinds::new().await;
    let mut visitor = Visitor::new(&k.app);
    let (colour, stars, agree) = (k.id("Colour"), k.id("Stars"), k.id("I agree"));
    let blue = k.option("Colour", "Blue");
    let (cheese, ham) = (k.option("Toppings", "Cheese"), k.option("Toppings", "Ham"));
    let query = format!(
        "utm_source=newsletter&{colour}={blue}&{}={cheese}&{}={ham}&{stars}=2&{}=https%3A%2F%2Fa.example&{agree}=yes&nope=1",
        k.id("Toppings"),
        k.id("Toppings"),
        k.id("Website"),
    );
    let page = visitor.open(&format!("{}?{query}", k.short_id())).await;
    assert_eq!(page.status, 200);
    let utm = k.id("utm_source");
    assert!(page.html.contains(&format!(
        "<input type=\"hidden\" name=\"{utm}\" value=\"newsletter\">"
    )));
    assert!(tag(&page, &format!("f-{colour}-2")).contains(" checked"));
    assert!(tag(&page, &format!("f-{}-0", k.id("Toppings"))).contains(" checked"));
    assert!(tag(&page, &format!("f-{}-1", k.id("Toppings"))).contains(" checked"));
    assert!(tag(&page, &format!("f-{stars}-1")).contains(" checked"));
    assert!(tag(&page, &format!("f-{}", k.id("Website"))).contains("value=\"https://a.example\""));
    assert!(tag(&page, &format!("f-{agree}")).contains(" checked"));

    // The hidden field's value arrives with the submission, as a browser sends the page.
    let token = page.token();
    let colour_name = format!("{colour}:one");
    let agree_name = format!("{agree}:bool");
    let fields = [
        ("_token", token.as_str()),
        (&colour_name, blue.as_str()),
        (&agree_name, "true"),
        (&utm, "newsletter"),
    ];
    let page = visitor.submit(&k.short_id(), DESKTOP, &fields).await;
    assert_eq!(page.status, 200, "{}", page.html);
    let responses = k.responses().await;
    assert_eq!(responses[0]["answers"][&utm], json!("newsletter"));
    assert_eq!(responses[0]["answers"][&colour], json!(blue));
}

/// Chromium at phone width answers every kind by its label, with and without
/// JavaScript: no serious axe-core violation, no CSP violation, no sideways scrolling,
/// and the answers stored as the core takes them (the hidden field from the URL query).
#[tokio::test]
async fn chromium_answers_every_kind_by_its_labels() {
    if !crate::browser::browser_available() {
        return;
    }
    let k = Kinds::new().await;
    let origin = k.app.http_base.trim_end_matches("/api/v1").to_owned();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/kinds.mjs");
    for (n, mode) in ["script", "noscript"].into_iter().enumerate() {
        let url = format!("{origin}/f/{}?utm_source={mode}", k.short_id());
        let output = tokio::process::Command::new("node")
            .args([script, &url, mode])
            .output()
            .await
            .expect("running node");
        assert!(
            output.status.success(),
            "browser script failed: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let seen: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(seen["openedStatus"], 200, "{seen}");
        assert_eq!(seen["submittedStatus"], 200, "{seen}");
        assert_eq!(seen["errors"], json!([]), "{seen}");
        assert_eq!(seen["cspViolations"], json!([]), "{seen}");
        assert_eq!(seen["overflow"], false, "{seen}");
        if mode == "script" {
            assert_eq!(seen["axe"], json!([]), "{seen}");
        }
        let responses = k.responses().await;
        assert_eq!(responses.len(), n + 1);
        let answers = responses
            .iter()
            .map(|r| r["answers"].clone())
            .find(|a| a[k.id("utm_source")] == mode)
            .unwrap_or_else(|| panic!("no response with utm_source={mode}: {responses:?}"));
        assert_eq!(answers[k.id("Colour")], json!(k.option("Colour", "Green")));
        assert_eq!(
            answers[k.id("Country")],
            json!(k.option("Country", "Japan"))
        );
        assert_eq!(
            answers[k.id("Toppings")],
            json!([k.option("Toppings", "Cheese"), k.option("Toppings", "Olives"), {"other": "Pineapple"}])
        );
        assert_eq!(answers[k.id("Stars")], json!(3));
        assert_eq!(answers[k.id("Recommend")], json!(9));
        assert_eq!(answers[k.id("Arrival")], json!("2026-05-01"));
        assert_eq!(answers[k.id("Phone")], json!("+33612345678"));
        assert_eq!(answers[k.id("I agree")], json!(true));
    }
}
