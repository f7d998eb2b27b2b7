//! Members and roles (issue 33 §1), over the real binary: invitations made in the
//! dashboard and accepted in a fresh browser, or made and accepted over gRPC; what each
//! role may do, checked by the core's gate for the dashboard and gRPC alike (a refusal
//! is INSUFFICIENT_SCOPE and changes nothing, counted in the database); a removed or
//! lowered member stopped at once on a second instance. Joining, leaving and switching
//! are `member_lifecycle.rs`'.

use crate::dashboard_session::{
    Dashboard, browser, channel, input_value, origin, session_cookie, signed_in, spawn,
};
use crate::harness::{Reply, TestApp, send};
use forms::pb::forms_service_client::FormsServiceClient;
use forms::pb::members_service_client::MembersServiceClient;
use forms::pb::owner_service_client::OwnerServiceClient;
use forms::pb::responses_service_client::ResponsesServiceClient;
use forms::pb::webhooks_service_client::WebhooksServiceClient;
use forms::pb::{self};
use serde_json::json;
use tonic::{Code, Status};
use tonic_types::StatusExt;

pub(crate) fn refused_for_role(status: &Status) {
    assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
    let info = status.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.reason, "INSUFFICIENT_SCOPE", "{status:?}");
}

/// A gRPC session of someone: the session token and its CSRF token.
pub(crate) struct Session {
    pub(crate) token: String,
    pub(crate) csrf: String,
}

impl Session {
    pub(crate) fn of(session: Option<pb::DashboardSession>) -> Self {
        let session = session.expect("a session");
        Self {
            token: session.token,
            csrf: session.csrf_token,
        }
    }

    pub(crate) fn call<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let md = request.metadata_mut();
        md.insert("x-dashboard-session", self.token.parse().expect("metadata"));
        md.insert("x-csrf-token", self.csrf.parse().expect("metadata"));
        request
    }
}

/// Invites `email` as `role` over gRPC in `owner`'s name; the link's token.
pub(crate) async fn invite(app: &TestApp, owner: &Dashboard, email: &str, role: &str) -> String {
    let mut members = MembersServiceClient::new(channel(app).await);
    let request = pb::InviteMemberRequest {
        email: email.into(),
        role: role.into(),
    };
    let reply = members.invite_member(owner.grpc_changing(request)).await;
    reply.expect("invited").into_inner().token
}

/// Accepts an invitation over gRPC without a session: the new person's session.
pub(crate) async fn accept(app: &TestApp, token: &str) -> Result<Session, Status> {
    let mut members = MembersServiceClient::new(channel(app).await);
    let request = tonic::Request::new(pb::AcceptInvitationRequest {
        token: token.into(),
    });
    let reply = members.accept_invitation(request).await?;
    Ok(Session::of(reply.into_inner().session))
}

async fn form_title(owner: &Dashboard, app: &TestApp, id: &str) -> String {
    let reply = send(
        app.request(reqwest::Method::GET, &format!("/forms/{id}"))
            .header("x-api-key", &owner.key),
    )
    .await;
    reply.ok(200)["form"]["title"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

pub(crate) async fn count(app: &TestApp, sql: &'static str, account: &str) -> i64 {
    sqlx::query_scalar::<_, i64>(sql)
        .bind(account)
        .fetch_one(&app.pool)
        .await
        .expect("count")
}

const KEYS: &str =
    "SELECT count(*) FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.name = $1";
const FORMS: &str =
    "SELECT count(*) FROM forms f JOIN accounts a ON a.id = f.account_id WHERE a.name = $1";
const WEBHOOKS: &str = "SELECT count(*) FROM webhooks w JOIN forms f ON f.id = w.form_id JOIN accounts a ON a.id = f.account_id WHERE a.name = $1";

/// Follows an invitation's link in a browser without a session: the page, then its
/// button; the signed-in browser.
async fn accept_in_browser(owner: &Dashboard, link: &str) -> (Reply, Option<Dashboard>) {
    let client = browser();
    let page = send(client.get(link)).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.text.contains("Accept the invitation"), "{}", page.text);
    let named = format!("the forms of <strong>{}</strong> as", owner.account);
    assert!(page.text.contains(&named), "{}", page.text);
    let token = input_value(&page.text, "token").expect("the token field");
    let body = serde_urlencoded::to_string([("token", token.as_str())]).expect("form body");
    let reply = send(
        client
            .post(format!("{}/app/invitation", owner.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body),
    )
    .await;
    let Some(cookie) = session_cookie(&reply) else {
        return (reply, None);
    };
    let mut member = Dashboard {
        base: owner.base.clone(),
        cookie,
        csrf: String::new(),
        client,
        account: owner.account.clone(),
        key: owner.key.clone(),
    };
    let forms = member.get("/app/forms").await;
    assert_eq!(forms.status, 200, "{}", forms.text);
    member.csrf = input_value(&forms.text, "_csrf").expect("a CSRF field");
    (reply, Some(member))
}

#[tokio::test]
async fn an_invited_viewer_reads_results_and_is_refused_every_change() {
    let app = spawn(&[]).await;
    let owner = signed_in(&app, "viewer-team").await;
    let form = app
        .create_form(
            &owner.key,
            &json!({"title": "Survey", "fields": [{"type": "short_text", "label": "Name"}]}),
        )
        .await;
    let id = form["id"].as_str().expect("id").to_owned();

    // Invited on the Members page: the link is shown once, to copy.
    let invited = owner
        .post(
            "/app/members/invite",
            &[("email", "vera@example.com"), ("role", "viewer")],
        )
        .await;
    assert_eq!(invited.status, 200, "{}", invited.text);
    let text = &invited.text;
    let at = text
        .find("/app/invitation?token=")
        .expect("the link on the page");
    let start = text[..at].rfind('"').expect("quoted") + 1;
    let end = at + text[at..].find('"').expect("quoted");
    let link = text[start..end].to_owned();
    assert!(link.starts_with(&origin(&app)), "{link}");
    let (accepted, viewer) = accept_in_browser(&owner, &link).await;
    assert_eq!(accepted.status, 303, "{}", accepted.text);
    let viewer = viewer.expect("signed in as the viewer");

    // The viewer reads the form, its results, and the members.
    assert_eq!(
        viewer
            .get(&format!("/app/forms/{id}/responses"))
            .await
            .status,
        200
    );
    // The pages offer a viewer no control that changes anything; the owner's offer them.
    for (page, control) in [
        ("/app/forms".to_owned(), "Create form"),
        ("/app/forms".to_owned(), "href=\"/app/keys\""),
        ("/app/forms".to_owned(), "href=\"/app/audit\""),
        (format!("/app/forms/{id}"), "Save title and description"),
        (format!("/app/forms/{id}"), "Add a question here"),
        (format!("/app/forms/{id}/webhooks"), "Create webhook"),
    ] {
        let (mine, theirs) = (owner.get(&page).await, viewer.get(&page).await);
        assert_eq!(theirs.status, 200, "{page}: {}", theirs.text);
        assert!(
            mine.text.contains(control),
            "{page} offers the owner {control}"
        );
        assert!(
            !theirs.text.contains(control),
            "{page} offers a viewer {control}"
        );
    }
    let builder = viewer.get(&format!("/app/forms/{id}")).await;
    assert!(builder.text.contains("Your role is viewer") && builder.text.contains("Name"));
    let members = viewer.get("/app/members").await;
    assert_eq!(members.status, 200, "{}", members.text);
    assert!(members.text.contains("vera@example.com") && members.text.contains("You are Viewer"));
    assert!(
        !members.text.contains("Invite someone"),
        "a viewer is offered no invitation"
    );

    // Every change is refused, in the dashboard and over gRPC, and nothing changes.
    let renamed = viewer
        .post(
            &format!("/app/forms/{id}/details"),
            &[("title", "Mine now")],
        )
        .await;
    assert_eq!(renamed.status, 403, "{}", renamed.text);
    assert!(renamed.text.contains("role"), "{}", renamed.text);
    let mut forms = FormsServiceClient::new(channel(&app).await);
    let update = pb::UpdateFormRequest {
        id: id.clone(),
        form: Some(pb::Form {
            title: "Mine now".into(),
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec!["title".into()],
        }),
    };
    refused_for_role(
        &forms
            .update_form(viewer.grpc_changing(update))
            .await
            .expect_err("refused"),
    );
    let delete = pb::DeleteFormRequest { id: id.clone() };
    refused_for_role(
        &forms
            .delete_form(viewer.grpc_changing(delete))
            .await
            .expect_err("refused"),
    );
    let mut owner_service = OwnerServiceClient::new(channel(&app).await);
    let key = pb::CreateOwnKeyRequest::default();
    refused_for_role(
        &owner_service
            .create_own_key(viewer.grpc_changing(key))
            .await
            .expect_err("refused"),
    );
    assert_eq!(form_title(&owner, &app, &id).await, "Survey");
    assert_eq!(
        count(&app, KEYS, "viewer-team").await,
        2,
        "the owner's key and the session key"
    );
    let listed = forms
        .list_forms(viewer.grpc(pb::ListFormsRequest::default(), false))
        .await;
    assert_eq!(
        listed
            .expect("a viewer lists forms")
            .into_inner()
            .forms
            .len(),
        1
    );

    // The link worked once: its page says so, and its token opens nothing.
    let spent = send(browser().get(&link)).await;
    assert_eq!(spent.status, 404, "{}", spent.text);
    assert!(spent.text.contains("used already"), "{}", spent.text);
    let token = link
        .split_once("token=")
        .map(|(_, t)| t)
        .unwrap_or_default();
    assert!(
        accept(&app, token)
            .await
            .is_err_and(|e| e.code() == Code::NotFound)
    );
}

#[tokio::test]
async fn an_editor_builds_and_publishes_but_makes_no_keys_or_webhooks() {
    let app = spawn(&[]).await;
    let owner = signed_in(&app, "editor-team").await;
    let editor = accept(
        &app,
        &invite(&app, &owner, "ed@example.com", "editor").await,
    )
    .await
    .expect("accepted");
    let mut forms = FormsServiceClient::new(channel(&app).await);
    let created = forms
        .create_form(editor.call(pb::CreateFormRequest {
            title: "Built by the editor".into(),
            fields: vec![pb::FormField {
                r#type: "short_text".into(),
                label: "Name".into(),
                ..Default::default()
            }],
            ..Default::default()
        }))
        .await
        .expect("an editor builds")
        .into_inner();
    let id = created.form.expect("form").id;
    let publish = pb::UpdateFormRequest {
        id: id.clone(),
        form: Some(pb::Form {
            status: pb::FormStatus::Published as i32,
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec!["status".into()],
        }),
    };
    forms
        .update_form(editor.call(publish))
        .await
        .expect("an editor publishes");

    let keys_before = count(&app, KEYS, "editor-team").await;
    let mut owner_service = OwnerServiceClient::new(channel(&app).await);
    let key = pb::CreateOwnKeyRequest::default();
    refused_for_role(
        &owner_service
            .create_own_key(editor.call(key))
            .await
            .expect_err("no keys"),
    );
    let mut webhooks = WebhooksServiceClient::new(channel(&app).await);
    let hook = pb::CreateWebhookRequest {
        form_id: id.clone(),
        url: "https://example.com/hook".into(),
        ..Default::default()
    };
    refused_for_role(
        &webhooks
            .create_webhook(editor.call(hook))
            .await
            .expect_err("no webhooks"),
    );
    let mut responses = ResponsesServiceClient::new(channel(&app).await);
    let erase = pb::EraseRespondentRequest::default();
    refused_for_role(
        &responses
            .erase_respondent(editor.call(erase))
            .await
            .expect_err("no erasure"),
    );
    assert_eq!(count(&app, KEYS, "editor-team").await, keys_before);
    assert_eq!(count(&app, WEBHOOKS, "editor-team").await, 0);
    // Nor can an editor invite.
    let mut members = MembersServiceClient::new(channel(&app).await);
    let request = pb::InviteMemberRequest {
        email: "x@example.com".into(),
        role: "viewer".into(),
    };
    refused_for_role(
        &members
            .invite_member(editor.call(request))
            .await
            .expect_err("no invitations"),
    );
}

#[tokio::test]
async fn a_removed_or_lowered_member_is_stopped_at_once_on_a_second_instance() {
    let app = spawn(&[]).await;
    let second = TestApp::spawn_on(app.db.clone(), &[]).await;
    let owner = signed_in(&app, "two-servers").await;
    let lowered = accept(
        &app,
        &invite(&app, &owner, "low@example.com", "editor").await,
    )
    .await
    .expect("accepted");
    let removed = accept(
        &app,
        &invite(&app, &owner, "gone@example.com", "editor").await,
    )
    .await
    .expect("accepted");
    let mut there = FormsServiceClient::new(channel(&second).await);
    let create = |title: &str| pb::CreateFormRequest {
        title: title.into(),
        ..Default::default()
    };
    there
        .create_form(lowered.call(create("a")))
        .await
        .expect("an editor builds there");
    there
        .list_forms(removed.call(pb::ListFormsRequest::default()))
        .await
        .expect("reads there");

    let mut members = MembersServiceClient::new(channel(&app).await);
    let listed = members
        .list_members(owner.grpc(pb::ListMembersRequest {}, false))
        .await
        .expect("listed")
        .into_inner();
    let person = |email: &str| {
        listed
            .members
            .iter()
            .find(|m| m.email == email)
            .map(|m| m.person_id.clone())
            .expect("member")
    };
    let change = pb::ChangeMemberRoleRequest {
        person_id: person("low@example.com"),
        role: "viewer".into(),
    };
    members
        .change_member_role(owner.grpc_changing(change))
        .await
        .expect("lowered");
    let remove = pb::RemoveMemberRequest {
        person_id: person("gone@example.com"),
    };
    members
        .remove_member(owner.grpc_changing(remove))
        .await
        .expect("removed");

    // On the other server, the very next call.
    refused_for_role(
        &there
            .create_form(lowered.call(create("b")))
            .await
            .expect_err("lowered"),
    );
    there
        .list_forms(lowered.call(pb::ListFormsRequest::default()))
        .await
        .expect("still reads");
    let gone = there
        .list_forms(removed.call(pb::ListFormsRequest::default()))
        .await;
    assert_eq!(gone.expect_err("removed").code(), Code::Unauthenticated);

    // The trail names who did it, and to whom.
    let mut audit = forms::pb::audit_service_client::AuditServiceClient::new(channel(&app).await);
    let entries = audit
        .list_audit_entries(owner.grpc(pb::ListAuditEntriesRequest::default(), false))
        .await
        .expect("trail")
        .into_inner()
        .entries;
    for action in [
        "InviteMember",
        "AcceptInvitation",
        "ChangeMemberRole",
        "RemoveMember",
    ] {
        assert!(
            entries.iter().any(|e| e.action == action),
            "{action} in {entries:?}"
        );
    }
    let removal = entries
        .iter()
        .find(|e| e.action == "RemoveMember")
        .expect("entry");
    assert_eq!(removal.target_kind, "member");
    assert!(!removal.actor_member_id.is_empty());
}

const SECRET: &str = "members-test-session-secret-of-32-bytes-or-more";

/// The identity provider's session cookie for `subject`.
fn provider_cookie(subject: &str) -> String {
    let claims = json!({"sub": subject, "exp": crate::harness::unix_now() + 600});
    let key = jsonwebtoken::EncodingKey::from_secret(SECRET.as_bytes());
    let token = jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &key)
        .expect("a provider token");
    format!("session={token}")
}

#[tokio::test]
async fn over_rest_a_member_who_accepted_with_the_providers_cookie_keeps_to_their_role() {
    let app = spawn(&["--session-hs256-secret", SECRET]).await;
    let owner = signed_in(&app, "rest-team").await;
    let form = app
        .create_form(
            &owner.key,
            &json!({"title": "Survey", "fields": [{"type": "short_text", "label": "Name"}]}),
        )
        .await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    let mut members = MembersServiceClient::new(channel(&app).await);
    for (email, role, subject) in [
        ("vi@example.com", "viewer", "viewer-subject"),
        ("ed@example.com", "editor", "editor-subject"),
    ] {
        let token = invite(&app, &owner, email, role).await;
        let mut request = tonic::Request::new(pb::AcceptInvitationRequest { token });
        let cookie = provider_cookie(subject).parse().expect("metadata");
        request.metadata_mut().insert("cookie", cookie);
        let joined = members.accept_invitation(request).await.expect("accepted");
        assert_eq!(joined.into_inner().role, role);
    }
    let rest = |method: reqwest::Method, subject: &str| {
        app.request(method, &path)
            .header("cookie", provider_cookie(subject))
    };
    let renamed = json!({"title": "Renamed"});
    // The viewer reads, and is refused the change; the editor makes it.
    let read = send(rest(reqwest::Method::GET, "viewer-subject")).await;
    assert_eq!(read.ok(200)["form"]["title"], "Survey");
    let refused = send(rest(reqwest::Method::PUT, "viewer-subject").json(&renamed)).await;
    refused.error(403, "INSUFFICIENT_SCOPE");
    let deleted = send(rest(reqwest::Method::DELETE, "viewer-subject")).await;
    deleted.error(403, "INSUFFICIENT_SCOPE");
    // A refused POST makes nothing: a new form, and a webhook on this one.
    let (forms_before, hooks_before) = (
        count(&app, FORMS, "rest-team").await,
        count(&app, WEBHOOKS, "rest-team").await,
    );
    let create = app
        .request(reqwest::Method::POST, "/forms")
        .header("cookie", provider_cookie("viewer-subject"))
        .json(&json!({"title": "Mine", "fields": [{"type": "short_text", "label": "A"}]}));
    send(create).await.error(403, "INSUFFICIENT_SCOPE");
    let hook = app
        .request(reqwest::Method::POST, &format!("{path}/webhooks"))
        .header("cookie", provider_cookie("viewer-subject"))
        .json(&json!({"url": "https://example.com/hook", "events": ["response.created"]}));
    send(hook).await.error(403, "INSUFFICIENT_SCOPE");
    assert_eq!(count(&app, FORMS, "rest-team").await, forms_before);
    assert_eq!(count(&app, WEBHOOKS, "rest-team").await, hooks_before);
    assert_eq!(
        form_title(&owner, &app, form["id"].as_str().unwrap_or_default()).await,
        "Survey"
    );
    let changed = send(rest(reqwest::Method::PUT, "editor-subject").json(&renamed)).await;
    assert_eq!(changed.ok(200)["form"]["title"], "Renamed");
}
