//! Forms with pages and conditions in the hosted page (`/f/{short_id}`), over real HTTP
//! as a browser without JavaScript walks them: each page posted and answered with a
//! redirect to the next (Post/Redirect/Get), the resume cookie and link, Back keeping
//! the answers, a page or field hidden by an earlier answer left out, same-page
//! conditions drawn with their hint and rule, a refused page shown again, and the last
//! page completing the response. `tests/browser/pages.mjs` walks the same form in
//! Chromium, with and without JavaScript.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::DESKTOP;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Three pages: the second shown to car owners only; the third asks "Why not?" of the
/// others. "Car model" depends on an answer of its own page.
pub fn paged_fields() -> Value {
    json!([
        {"type": "page_break", "label": "About you"},
        {"type": "single_choice", "label": "Do you own a car?", "required": true, "ref": "car",
         "options": [{"label": "Yes"}, {"label": "No"}]},
        {"type": "short_text", "label": "Car model", "ref": "model",
         "show_if": [{"field": "car", "op": "equals", "value": "Yes"}]},
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "page_break", "label": "Your car",
         "show_if": [{"field": "car", "op": "equals", "value": "Yes"}]},
        {"type": "rating", "label": "How much do you like it?", "required": true, "max": 5},
        {"type": "page_break", "label": "Last words"},
        {"type": "short_text", "label": "Why not?",
         "show_if": [{"field": "car", "op": "equals", "value": "No"}]},
        {"type": "long_text", "label": "Anything else?"},
        {"type": "email", "label": "Email", "required": true},
        {"type": "hidden", "label": "utm_source"},
    ])
}

pub struct Paged {
    pub app: TestApp,
    pub key: String,
    pub form: Value,
}

impl Paged {
    pub async fn new(fields: Value) -> Paged {
        let app = TestApp::spawn().await;
        let key = app.key(PRO, ALL).await;
        let settings = json!({"confirmation_message": "Thanks for riding along!"});
        let form = published_form(&app, &key, fields, settings).await;
        Paged { app, key, form }
    }

    pub fn short_id(&self) -> String {
        self.form["short_id"].as_str().expect("short id").to_owned()
    }

    pub fn origin(&self) -> String {
        self.app.http_base.trim_end_matches("/api/v1").to_owned()
    }

    pub fn id(&self, label: &str) -> String {
        self.form["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .find(|f| f["label"] == label)
            .and_then(|f| f["id"].as_str())
            .unwrap_or_else(|| panic!("field {label}"))
            .to_owned()
    }

    pub fn option(&self, label: &str, option: &str) -> String {
        self.form["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .find(|f| f["label"] == label)
            .and_then(|f| f["options"].as_array())
            .and_then(|o| o.iter().find(|o| o["label"] == option))
            .and_then(|o| o["id"].as_str())
            .unwrap_or_else(|| panic!("option {option}"))
            .to_owned()
    }

    /// Responses of the form (`status`: completed by default, as SPEC's lists).
    pub async fn responses(&self, query: &str) -> Vec<Value> {
        let id = self.form["id"].as_str().expect("form id");
        self.app
            .get(&format!("/forms/{id}/responses{query}"), &self.key)
            .await
            .ok(200)["responses"]
            .as_array()
            .expect("responses")
            .clone()
    }
}

/// A browser without JavaScript: its cookies (name → value, as the server set them,
/// gone when cleared) and the `Set-Cookie` lines of its last answer; no redirect
/// followed. A framed page's browser sends no cookie (withheld from a frame of another
/// site) and says where its requests come from.
pub struct Browser {
    client: reqwest::Client,
    origin: String,
    jar: BTreeMap<String, String>,
    set_cookies: Vec<String>,
    framed: bool,
}

/// What the server answered.
pub struct Page {
    pub status: u16,
    pub location: Option<String>,
    pub html: String,
}

impl Page {
    /// The value of the input named `name`, if the page has one.
    pub fn input(&self, name: &str) -> Option<String> {
        let at = self.html.find(&format!("name=\"{name}\""))?;
        let start = self.html[..at].rfind('<')?;
        let end = at + self.html[at..].find('>')?;
        let tag = &self.html[start..end];
        let value = tag.find("value=\"")? + 7;
        let len = tag[value..].find('"')?;
        Some(tag[value..value + len].to_owned())
    }

    /// The page's form's action, where a browser posts it.
    fn action(&self) -> String {
        let at = self.html.find("action=\"").expect("a form") + 8;
        let len = self.html[at..].find('"').expect("action end");
        self.html[at..at + len].replace("&amp;", "&")
    }

    /// The opening tag of the element whose `id` is `id`.
    fn tag(&self, id: &str) -> &str {
        let at = self
            .html
            .find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("no element {id} in {}", self.html));
        let start = self.html[..at].rfind('<').expect("tag start");
        let end = at + self.html[at..].find('>').expect("tag end");
        &self.html[start..=end]
    }

    fn has_field(&self, id: &str) -> bool {
        self.html.contains(&format!("id=\"f-{id}\""))
    }

    /// The page's own hidden inputs, as a browser posts them.
    fn own_inputs(&self) -> Vec<(String, String)> {
        ["_token", "_nonce", "_page", "_resume"]
            .into_iter()
            .filter_map(|n| self.input(n).map(|v| (n.to_owned(), v)))
            .collect()
    }
}

impl Browser {
    pub fn new(origin: &str) -> Browser {
        Browser {
            client: reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            origin: origin.to_owned(),
            jar: BTreeMap::new(),
            set_cookies: Vec::new(),
            framed: false,
        }
    }

    fn cookie_header(&self) -> String {
        if self.framed {
            return String::new();
        }
        self.jar
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn finish(&mut self, reply: reqwest::Response) -> Page {
        self.set_cookies = reply
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(str::to_owned)
            .collect();
        for line in &self.set_cookies {
            let pair = line.split(';').next().unwrap_or_default();
            let (name, value) = pair.split_once('=').expect("cookie pair");
            if value.is_empty() || line.contains("Max-Age=0") {
                self.jar.remove(name);
            } else {
                self.jar.insert(name.to_owned(), value.to_owned());
            }
        }
        Page {
            status: reply.status().as_u16(),
            location: reply
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            html: reply.text().await.expect("page body"),
        }
    }

    /// `GET path` (`/f/...`).
    pub async fn open(&mut self, path: &str) -> Page {
        let reply = self
            .client
            .get(format!("{}{path}", self.origin))
            .header("cookie", self.cookie_header())
            .header(
                "sec-fetch-dest",
                if self.framed { "iframe" } else { "document" },
            )
            .send()
            .await
            .expect("GET page");
        self.finish(reply).await
    }

    /// Posts `page`'s form with its own inputs and `answers`, as a browser does.
    pub async fn post(&mut self, page: &Page, answers: &[(&str, &str)]) -> Page {
        let mut fields = page.own_inputs();
        fields.extend(
            answers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned())),
        );
        let reply = self
            .client
            .post(format!("{}{}", self.origin, page.action()))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("user-agent", DESKTOP)
            .header("cookie", self.cookie_header())
            .header("sec-fetch-site", "same-origin")
            .body(serde_urlencoded::to_string(&fields).expect("form body"))
            .send()
            .await
            .expect("POST page");
        self.finish(reply).await
    }

    /// Follows a redirect.
    pub async fn follow(&mut self, page: &Page) -> Page {
        assert_eq!(page.status, 303, "{}", page.html);
        let location = page.location.clone().expect("Location");
        self.open(&location).await
    }

    pub fn resume_cookie(&self) -> Option<&String> {
        self.jar.get("formsd_resume")
    }
}

#[tokio::test]
async fn a_form_with_pages_is_walked_page_by_page_and_resumed_from_a_link() {
    let p = Paged::new(paged_fields()).await;
    let short_id = p.short_id();
    let (car, model, name) = (p.id("Do you own a car?"), p.id("Car model"), p.id("Name"));
    let (like, why, email) = (
        p.id("How much do you like it?"),
        p.id("Why not?"),
        p.id("Email"),
    );
    let (yes, utm) = (p.option("Do you own a car?", "Yes"), p.id("utm_source"));
    let car_name = format!("{car}:one");
    let like_name = format!("{like}:int");
    let mut browser = Browser::new(&p.origin());

    // Page 1: its title, where the visitor is, its own fields, Next and no Back, and
    // nothing saved yet to resume.
    let first = browser
        .open(&format!("/f/{short_id}?utm_source=newsletter"))
        .await;
    assert_eq!(first.status, 200, "{}", first.html);
    assert!(first.html.contains("<h2>About you</h2>"), "{}", first.html);
    // Nothing answered yet: "Your car" is not for this visitor (yet), so two pages.
    assert!(first.html.contains("Page 1 of 2"), "{}", first.html);
    assert!(first.html.contains("<progress value=\"1\" max=\"2\""));
    assert!(first.has_field(&car) && first.has_field(&model) && first.has_field(&name));
    assert!(!first.has_field(&like) && !first.has_field(&email));
    let page_break = p.id("About you");
    assert!(
        !first.html.contains(&format!("name=\"{page_break}")),
        "a page break is no input"
    );
    assert!(
        first
            .html
            .contains("name=\"nav\" value=\"next\">Next</button>")
    );
    assert!(!first.html.contains("value=\"back\""));
    assert!(!first.html.contains("Continue later"));
    assert_eq!(first.input("_page").as_deref(), Some("1"));
    // "Car model" carries its condition on an answer of the same page, with its hint.
    assert!(
        first
            .html
            .contains("Answer only if “Do you own a car?” is Yes"),
        "{}",
        first.html
    );
    assert!(first.html.contains("data-show-if="));
    assert!(first.html.contains("src=\"/f/assets/conditions.js\""));
    // The prefill travels with the page's address.
    assert!(first.action().contains("utm_source=newsletter"));

    // Page 1 posted: on to page 2, the place kept in a cookie of the form's own path.
    let posted = browser
        .post(
            &first,
            &[(&car_name, &yes), (&model, "Zoe"), (&name, "Ada")],
        )
        .await;
    assert_eq!(posted.status, 303, "{}", posted.html);
    assert_eq!(
        posted.location.as_deref(),
        Some(format!("/f/{short_id}?page=2&utm_source=newsletter").as_str())
    );
    let cookie = browser
        .set_cookies
        .iter()
        .find(|c| c.starts_with("formsd_resume="))
        .expect("resume cookie set")
        .clone();
    for attribute in [
        &format!("Path=/f/{short_id}"),
        "HttpOnly",
        "SameSite=Lax",
        "Max-Age=2592000",
    ] {
        assert!(cookie.contains(attribute), "{cookie} lacks {attribute}");
    }
    let token = browser.resume_cookie().expect("resume token").clone();

    // Page 2: shown to car owners; Back; the link to continue later.
    let second = browser.follow(&posted).await;
    assert_eq!(second.status, 200, "{}", second.html);
    assert!(second.html.contains("<h2>Your car</h2>") && second.html.contains("Page 2 of 3"));
    assert!(second.has_field(&like) && !second.has_field(&car));
    assert!(
        second
            .html
            .contains("name=\"nav\" value=\"back\" formnovalidate>Back</button>")
    );
    assert_eq!(second.input("_resume"), Some(token.clone()));
    // The link keeps the prefill too, for the fields of pages to come.
    let link = format!("/f/{short_id}?resume={token}&utm_source=newsletter");
    assert!(
        second
            .html
            .contains(&format!("href=\"{}\"", link.replace('&', "&amp;")))
    );
    assert!(second.tag("resume-link").contains(&format!(
        "{}{}",
        p.origin(),
        link.replace('&', "&amp;")
    )));

    // Back: page 1 again, its answers kept.
    let back = browser.post(&second, &[("nav", "back")]).await;
    assert_eq!(
        back.location.as_deref(),
        Some(format!("/f/{short_id}?page=1&utm_source=newsletter").as_str())
    );
    let again = browser.follow(&back).await;
    assert!(again.html.contains("Page 1 of 3"), "{}", again.html);
    assert!(again.tag(&format!("f-{car}-0")).contains(" checked"));
    assert!(again.tag(&format!("f-{model}")).contains("value=\"Zoe\""));
    assert!(again.tag(&format!("f-{name}")).contains("value=\"Ada\""));
    assert!(again.html.contains("Continue later"));

    // Another device, from the resume link: the same response, where it was left,
    // with the answers saved; and its own cookie from then on.
    let mut elsewhere = Browser::new(&p.origin());
    let resumed = elsewhere.open(&link).await;
    assert_eq!(resumed.status, 200, "{}", resumed.html);
    assert!(resumed.html.contains("Page 2 of 3"), "{}", resumed.html);
    assert_eq!(elsewhere.resume_cookie(), Some(&token));
    let earlier = elsewhere.open(&format!("/f/{short_id}?page=1")).await;
    assert!(earlier.tag(&format!("f-{name}")).contains("value=\"Ada\""));

    // Page 2 answered there; page 3 is the last: Submit, and the prefill of the
    // first address in its hidden field.
    let posted = elsewhere.post(&resumed, &[(&like_name, "4")]).await;
    let third = elsewhere.follow(&posted).await;
    assert!(third.html.contains("Page 3 of 3"), "{}", third.html);
    assert!(
        third
            .html
            .contains("<button type=\"submit\">Submit</button>")
    );
    assert!(!third.html.contains("value=\"next\""));
    // The prefill of the first address, in the hidden field of the last page.
    assert_eq!(third.input(&utm).as_deref(), Some("newsletter"));
    // Hidden by an answer on an earlier page: not drawn at all.
    assert!(!third.has_field(&why));
    assert!(!third.html.contains("Why not?"));

    // A refused last page: the same page again, the error by its field, the entries
    // kept, and the first field to fix focused.
    let refused = elsewhere
        .post(&third, &[(&p.id("Anything else?"), "Lovely car")])
        .await;
    assert_eq!(refused.status, 422, "{}", refused.html);
    assert!(refused.html.contains("Page 3 of 3"));
    assert!(
        refused
            .html
            .contains(&format!("<p class=\"error\" id=\"e-{email}\">"))
    );
    assert!(refused.html.contains(">Lovely car</textarea>"));
    assert!(refused.tag(&format!("f-{email}")).contains("autofocus"));
    assert!(p.responses("").await.is_empty(), "nothing completed yet");

    // Completed: the cookie cleared, the confirmation shown.
    let done = elsewhere
        .post(
            &refused,
            &[
                (&p.id("Anything else?"), "Lovely car"),
                (&email, "ada@example.com"),
                (&utm, "newsletter"),
            ],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    assert!(done.html.contains("Thanks for riding along!"));
    assert!(
        elsewhere
            .set_cookies
            .iter()
            .any(|c| c.starts_with("formsd_resume=;") && c.contains("Max-Age=0")),
        "{:?}",
        elsewhere.set_cookies
    );
    assert_eq!(elsewhere.resume_cookie(), None);

    // The API lists one completed response with every page's answers.
    let responses = p.responses("").await;
    assert_eq!(responses.len(), 1, "{responses:?}");
    let answers = &responses[0]["answers"];
    assert_eq!(answers[&car], json!(yes));
    assert_eq!(answers[&model], "Zoe");
    assert_eq!(answers[&name], "Ada");
    assert_eq!(answers[&like], json!(4));
    assert_eq!(answers[p.id("Anything else?")], "Lovely car");
    assert_eq!(answers[&email], "ada@example.com");
    assert_eq!(answers[&utm], "newsletter");
    assert!(answers.get(&why).is_none());
}

#[tokio::test]
async fn an_answer_that_hides_a_page_skips_it_there_and_back() {
    let p = Paged::new(paged_fields()).await;
    let short_id = p.short_id();
    let car = p.id("Do you own a car?");
    let no = p.option("Do you own a car?", "No");
    let car_name = format!("{car}:one");
    let mut browser = Browser::new(&p.origin());

    let first = browser.open(&format!("/f/{short_id}")).await;
    // Without JavaScript the visitor may still answer a question that does not apply;
    // the core refuses that answer, beside its field.
    let model = p.id("Car model");
    let refused = browser
        .post(
            &first,
            &[(&car_name, &no), (&model, "Zoe"), (&p.id("Name"), "Bob")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.html);
    assert!(refused.html.contains("Page 1 of 2"), "{}", refused.html);
    assert!(
        refused
            .html
            .contains(&format!("<p class=\"error\" id=\"e-{model}\">"))
    );
    assert!(refused.tag(&format!("f-{car}-1")).contains(" checked"));

    // Without it: page 2 is for car owners, so page 3 comes next.
    let posted = browser
        .post(&refused, &[(&car_name, &no), (&p.id("Name"), "Bob")])
        .await;
    assert_eq!(posted.status, 303, "{}", posted.html);
    assert_eq!(
        posted.location.as_deref(),
        Some(format!("/f/{short_id}?page=3").as_str())
    );
    let third = browser.follow(&posted).await;
    assert!(third.html.contains("<h2>Last words</h2>"), "{}", third.html);
    // Shown by the answer on page 1, and decided there: no rule left for the page.
    let why = p.id("Why not?");
    assert!(third.has_field(&why));
    assert!(!third.html.contains("data-show-if"));
    assert!(!third.html.contains("Answer only if"));
    assert!(!third.has_field(&p.id("How much do you like it?")));

    // Asking for the skipped page gives the page the visitor is at.
    let skipped = browser.open(&format!("/f/{short_id}?page=2")).await;
    assert!(!skipped.html.contains("Page 2 of 3"), "{}", skipped.html);

    // Back from page 3 leads to page 1, past the page not shown.
    let back = browser.post(&third, &[("nav", "back")]).await;
    assert_eq!(
        back.location.as_deref(),
        Some(format!("/f/{short_id}?page=1").as_str())
    );
    let first = browser.follow(&back).await;
    assert!(first.tag(&format!("f-{car}-1")).contains(" checked"));

    // Forward again and done: the response has no answer for the page skipped.
    let posted = browser
        .post(&first, &[(&car_name, &no), (&p.id("Name"), "Bob")])
        .await;
    let third = browser.follow(&posted).await;
    let done = browser
        .post(
            &third,
            &[(&why, "I cycle"), (&p.id("Email"), "bob@example.com")],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    let responses = p.responses("").await;
    assert_eq!(responses.len(), 1);
    let answers = &responses[0]["answers"];
    assert_eq!(answers[&why], "I cycle");
    assert!(answers.get(p.id("How much do you like it?")).is_none());
}

/// A page framed by another site gets no cookie: its address carries the resume token
/// from page to page instead.
#[tokio::test]
async fn a_framed_page_carries_its_resume_token_in_its_address() {
    let p = Paged::new(paged_fields()).await;
    let short_id = p.short_id();
    let mut framed = Browser::new(&p.origin());
    framed.framed = true;
    let first = framed.open(&format!("/f/{short_id}")).await;
    assert!(first.input("_nonce").is_some(), "{}", first.html);
    let car_name = format!("{}:one", p.id("Do you own a car?"));
    let posted = framed
        .post(
            &first,
            &[
                (&car_name, &p.option("Do you own a car?", "Yes")),
                (&p.id("Name"), "Ada"),
            ],
        )
        .await;
    assert_eq!(posted.status, 303, "{}", posted.html);
    let location = posted.location.clone().expect("Location");
    assert!(
        location.starts_with(&format!("/f/{short_id}?page=2&resume=")),
        "{location}"
    );
    let second = framed.follow(&posted).await;
    assert!(second.html.contains("Page 2 of 3"), "{}", second.html);
    assert!(second.html.contains("How much do you like it?"));
}

/// One page, a chain of conditions: Boxes when Extras has Roof box ticked, Trip when
/// Boxes is more than 1, Notes when Trip is before 2027 and Extras is answered.
fn chain_fields() -> Value {
    json!([
        {"type": "multiple_choice", "label": "Extras", "ref": "extras",
         "options": [{"label": "Roof box"}, {"label": "Tow bar"}]},
        {"type": "number", "label": "Boxes", "ref": "boxes",
         "show_if": [{"field": "extras", "op": "contains", "value": "Roof box"}]},
        {"type": "date", "label": "Trip", "ref": "trip",
         "show_if": [{"field": "boxes", "op": "greater_than", "value": 1}]},
        {"type": "short_text", "label": "Notes",
         "show_if": [{"field": "trip", "op": "less_than", "value": "2027-01-01"},
                     {"field": "extras", "op": "answered"}]},
    ])
}

/// A form without pages whose fields depend on answers of the same page: each such
/// field carries its rule for the script and a hint for pages without it; the script is
/// served from the binary under the page's policy. Without conditions, no script.
#[tokio::test]
async fn same_page_conditions_carry_their_rule_a_hint_and_the_script() {
    let p = Paged::new(chain_fields()).await;
    let mut browser = Browser::new(&p.origin());
    let page = browser.open(&format!("/f/{}", p.short_id())).await;
    assert_eq!(page.status, 200, "{}", page.html);
    assert!(!page.html.contains("Page 1 of"), "one page: no steps");
    for hint in [
        "Answer only if “Extras” includes Roof box",
        "Answer only if “Boxes” is more than 1",
        "Answer only if “Trip” is before 2027-01-01 and “Extras” is answered",
    ] {
        assert!(page.html.contains(hint), "{hint} missing: {}", page.html);
    }
    let roof = p.option("Extras", "Roof box");
    let rule = format!(
        "data-show-if=\"[{{&quot;field&quot;:&quot;{}&quot;,&quot;op&quot;:&quot;contains&quot;,&quot;value&quot;:&quot;{roof}&quot;,&quot;kind&quot;:&quot;multiple_choice&quot;,&quot;text&quot;:false}}]\"",
        p.id("Extras")
    );
    assert!(page.html.contains(&rule), "{rule} missing: {}", page.html);
    assert!(
        page.html
            .contains("<script type=\"module\" src=\"/f/assets/conditions.js\"></script>")
    );

    let script = reqwest::Client::new()
        .get(format!("{}/f/assets/conditions.js", p.origin()))
        .send()
        .await
        .expect("script");
    assert_eq!(script.status(), 200);
    assert_eq!(
        script.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert!(script.text().await.expect("body").contains("data-show-if"));

    let reply = reqwest::Client::new()
        .get(format!("{}/f/{}", p.origin(), p.short_id()))
        .send()
        .await
        .expect("page");
    let policy = reply.headers()["content-security-policy"]
        .to_str()
        .expect("policy")
        .to_owned();
    assert!(policy.contains("script-src 'self'"), "{policy}");

    // Without conditions the page has no script.
    let plain = Paged::new(contact_fields()).await;
    let page = Browser::new(&plain.origin())
        .open(&format!("/f/{}", plain.short_id()))
        .await;
    assert!(!page.html.contains("<script"));
    assert!(!page.html.contains("data-conditions"));
}

/// Runs `tests/browser/pages.mjs` on a page in `mode` (`script` or `noscript`).
async fn chromium(url: &str, mode: &str) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/pages.mjs");
    let output = tokio::process::Command::new("node")
        .args([script, url, mode])
        .output()
        .await
        .expect("running node");
    assert!(
        output.status.success(),
        "browser script failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("browser script prints JSON")
}

/// Chromium at phone width walks the form with pages, with and without JavaScript:
/// with it, "Car model" appears and goes as "Do you own a car?" changes, and its value
/// is not sent while hidden; without it, its hint is shown. Back and Next keep the
/// answers, the last page completes the response; no axe-core or CSP violation, no
/// sideways scrolling, and the first error focused.
#[tokio::test]
async fn chromium_walks_pages_with_and_without_javascript() {
    if !crate::browser::browser_available() {
        return;
    }
    let p = Paged::new(paged_fields()).await;
    for (n, mode) in ["script", "noscript"].into_iter().enumerate() {
        let url = format!("{}/f/{}?utm_source={mode}", p.origin(), p.short_id());
        let seen = chromium(&url, mode).await;
        assert_eq!(seen["cspViolations"], json!([]), "{seen}");
        assert_eq!(seen["overflow"], false, "{seen}");
        assert_eq!(
            seen["steps"],
            json!([
                "Page 1 of 2",
                "Page 2 of 2",
                "Page 1 of 2",
                "Page 2 of 3",
                "Page 3 of 3"
            ]),
            "{seen}"
        );
        assert_eq!(
            seen["keptAfterBack"],
            json!({"name": "Ada", "model": ""}),
            "{seen}"
        );
        assert_eq!(seen["done"], "Response sent", "{seen}");
        if mode == "script" {
            assert_eq!(seen["axe"], json!([]), "{seen}");
            assert_eq!(
                seen["modelShown"],
                json!({"unanswered": false, "yes": true, "no": false}),
                "{seen}"
            );
            assert_eq!(seen["hintShown"], false, "{seen}");
            assert_eq!(seen["focused"], format!("f-{}", p.id("Email")), "{seen}");
        } else {
            assert_eq!(seen["modelShown"]["unanswered"], true, "{seen}");
            assert_eq!(seen["hintShown"], true, "{seen}");
        }
        let responses = p.responses("").await;
        assert_eq!(responses.len(), n + 1, "{responses:?}");
        let answers = responses
            .iter()
            .map(|r| r["answers"].clone())
            .find(|a| a[p.id("utm_source")] == mode)
            .unwrap_or_else(|| panic!("no response with utm_source={mode}: {responses:?}"));
        assert_eq!(
            answers[p.id("Do you own a car?")],
            json!(p.option("Do you own a car?", "Yes"))
        );
        assert_eq!(answers[p.id("Car model")], "Zoe", "{answers}");
        assert_eq!(answers[p.id("Name")], "Ada");
        assert_eq!(answers[p.id("How much do you like it?")], json!(4));
        assert_eq!(answers[p.id("Email")], "ada@example.com");
    }
}

/// Chromium runs the conditions' script on a chain of same-page conditions: each field
/// appears and goes as the answers it depends on change (hiding one link hides what
/// hangs on it), values are kept while hidden but not sent, hints give way to the
/// script; no axe-core or CSP violation.
#[tokio::test]
async fn chromium_applies_same_page_conditions_as_the_visitor_answers() {
    if !crate::browser::browser_available() {
        return;
    }
    let p = Paged::new(chain_fields()).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/conditions.mjs");
    let url = format!("{}/f/{}", p.origin(), p.short_id());
    let seen = crate::fixtures::run_browser_script(&[&script, &url]).await;
    assert_eq!(seen["openedStatus"], 200, "{seen}");
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    assert_eq!(seen["axe"], json!([]), "{seen}");
    assert_eq!(seen["hintsShown"], 0, "{seen}");
    let shown = |after: &str, fields: &[&str]| json!({"after": after, "shown": fields});
    assert_eq!(
        seen["seen"],
        json!([
            shown("nothing", &[]),
            shown("roof box", &["Boxes"]),
            shown("2 boxes", &["Boxes", "Trip"]),
            shown("a trip in 2026", &["Boxes", "Trip", "Notes"]),
            shown("a trip in 2027", &["Boxes", "Trip"]),
            shown("1 box", &["Boxes"]),
            shown("no roof box", &[]),
            shown("3 boxes", &["Boxes", "Trip", "Notes"]),
        ]),
        "{seen}"
    );
    assert_eq!(
        seen["kept"],
        json!({"trip": "2026-06-01", "notes": "Bring straps"}),
        "{seen}"
    );
    // Sent with Trip and Notes hidden: accepted, which the core would refuse had their
    // values been sent.
    assert_eq!(seen["submittedStatus"], 200, "{seen}");
    assert_eq!(seen["heading"], "Response sent", "{seen}");
    let responses = p.responses("").await;
    assert_eq!(responses.len(), 1);
    let answers = &responses[0]["answers"];
    assert_eq!(
        answers[p.id("Extras")],
        json!([p.option("Extras", "Roof box")])
    );
    assert_eq!(answers[p.id("Boxes")], json!(1));
    assert!(answers.get(p.id("Trip")).is_none(), "{answers}");
    assert!(answers.get(p.id("Notes")).is_none(), "{answers}");
}
