//! Joining, leaving and switching (issue 33 §1): a link made out to an address that
//! already has a person signs no one in as that person; a mailed invitation arrives on
//! the public URL and its member signs in again by mail as themselves; the last owner
//! stays and admins never touch owners; the Members page and the invitation's page work
//! by keyboard in Chromium at 390 and 1280 px, axe-clean. The role checks themselves
//! are `members.rs`'.

use crate::dashboard_session::{channel, signed_in, spawn};
use crate::members::{Session, accept, count, invite, refused_for_role};
use forms::pb::forms_service_client::FormsServiceClient;
use forms::pb::members_service_client::MembersServiceClient;
use forms::pb::{self};
use serde_json::json;
use tonic::Code;

#[tokio::test]
async fn the_last_owner_stays_and_admins_never_touch_owners() {
    let app = spawn(&[]).await;
    let owner = signed_in(&app, "owners").await;
    let admin = accept(&app, &invite(&app, &owner, "ad@example.com", "admin").await)
        .await
        .expect("accepted");
    let mut members = MembersServiceClient::new(channel(&app).await);
    let left = members
        .leave_account(owner.grpc_changing(pb::LeaveAccountRequest {}))
        .await;
    let left = left.expect_err("the last owner stays");
    assert_eq!(left.code(), Code::InvalidArgument, "{left:?}");
    assert!(left.message().contains("at least one owner"), "{left:?}");

    let listed = members
        .list_members(admin.call(pb::ListMembersRequest {}))
        .await
        .expect("listed")
        .into_inner();
    assert_eq!(listed.caller_role, "admin");
    let the_owner = listed
        .members
        .iter()
        .find(|m| m.role == "owner")
        .expect("owner")
        .person_id
        .clone();
    let me = listed
        .members
        .iter()
        .find(|m| m.is_caller)
        .expect("me")
        .person_id
        .clone();
    let demote = pb::ChangeMemberRoleRequest {
        person_id: the_owner.clone(),
        role: "viewer".into(),
    };
    refused_for_role(
        &members
            .change_member_role(admin.call(demote))
            .await
            .expect_err("not an owner"),
    );
    let raise = pb::ChangeMemberRoleRequest {
        person_id: me.clone(),
        role: "owner".into(),
    };
    refused_for_role(
        &members
            .change_member_role(admin.call(raise.clone()))
            .await
            .expect_err("no self-promotion"),
    );
    let invite_owner = pb::InviteMemberRequest {
        email: "boss@example.com".into(),
        role: "owner".into(),
    };
    refused_for_role(
        &members
            .invite_member(admin.call(invite_owner))
            .await
            .expect_err("no owners"),
    );

    // Made owner by the owner, the first owner may go.
    members
        .change_member_role(owner.grpc_changing(raise))
        .await
        .expect("raised");
    members
        .leave_account(owner.grpc_changing(pb::LeaveAccountRequest {}))
        .await
        .expect("left");
    let after = members
        .list_members(admin.call(pb::ListMembersRequest {}))
        .await
        .expect("listed");
    let after = after.into_inner().members;
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(after[0].role, "owner");
    let gone = members
        .list_members(owner.grpc(pb::ListMembersRequest {}, false))
        .await;
    assert_eq!(
        gone.expect_err("the owner left").code(),
        Code::Unauthenticated
    );
}

#[tokio::test]
async fn a_copied_link_never_signs_in_as_someone_who_exists() {
    let app = spawn(&[]).await;
    let first = signed_in(&app, "first-team").await;
    let second = signed_in(&app, "second-team").await;
    let alice = accept(
        &app,
        &invite(&app, &first, "alice@example.com", "editor").await,
    )
    .await
    .expect("alice's person is made");
    // Whoever holds the second invitation's link cannot become alice with it.
    let token = invite(&app, &second, "Alice@Example.com", "viewer").await;
    let refused = accept(&app, &token).await.err().expect("refused");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(refused.message().contains("sign in first"), "{refused:?}");
    // Alice, signed in, accepts the same link (it was not spent) and joins.
    let mut members = MembersServiceClient::new(channel(&app).await);
    let request = alice.call(pb::AcceptInvitationRequest {
        token: token.clone(),
    });
    let joined = members
        .accept_invitation(request)
        .await
        .expect("accepted signed in")
        .into_inner();
    assert_eq!(joined.role, "viewer");
    let now = Session::of(joined.session);
    let accounts = members
        .list_my_accounts(now.call(pb::ListMyAccountsRequest {}))
        .await
        .expect("accounts")
        .into_inner()
        .accounts;
    let names: Vec<_> = accounts
        .iter()
        .map(|a| (a.account_name.as_str(), a.current))
        .collect();
    assert_eq!(names, [("first-team", false), ("second-team", true)]);
    // Switching ends this session and opens one of the other account.
    let first_id = accounts
        .iter()
        .find(|a| !a.current)
        .expect("other")
        .account_id
        .clone();
    let switched = members
        .switch_account(now.call(pb::SwitchAccountRequest {
            account_id: first_id,
        }))
        .await
        .expect("switched")
        .into_inner();
    let there = Session::of(switched.session);
    let mut forms = FormsServiceClient::new(channel(&app).await);
    forms
        .list_forms(there.call(pb::ListFormsRequest::default()))
        .await
        .expect("in first-team");
    let ended = forms
        .list_forms(now.call(pb::ListFormsRequest::default()))
        .await;
    assert_eq!(
        ended.expect_err("the old session ended").code(),
        Code::Unauthenticated
    );
    // An account none of its sessions' sign-ins reached is not offered: second-team
    // was joined after alice's sign-in, and this session descends from that sign-in.
    let unknown = pb::SwitchAccountRequest {
        account_id: uuid::Uuid::now_v7().to_string(),
    };
    let refused = members.switch_account(there.call(unknown)).await;
    assert_eq!(refused.expect_err("no such account").code(), Code::NotFound);
    // An API key is the account's, not a person's.
    let mut keyed = tonic::Request::new(pb::ListMembersRequest {});
    keyed
        .metadata_mut()
        .insert("x-api-key", first.key.parse().expect("metadata"));
    refused_for_role(&members.list_members(keyed).await.expect_err("no person"));
}

const PUBLIC_URL: &str = "http://forms.example.test";

/// The token after `prefix` in a mail's text part.
fn token_in(mail: &crate::smtp_sink::Mail, prefix: &str) -> String {
    let text = crate::smtp_sink::part(&mail.data, "text/plain").expect("a text part");
    let at = text
        .find(prefix)
        .unwrap_or_else(|| panic!("{prefix} in {text}"));
    text[at + prefix.len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

#[tokio::test]
async fn a_mailed_invitation_arrives_and_its_member_signs_in_again_by_mail() {
    let sink = crate::smtp_sink::SmtpSink::start().await;
    let smtp = sink.url();
    let app = spawn(&[
        "--smtp-url",
        &smtp,
        "--smtp-from",
        "Forms <forms@example.com>",
        "--public-url",
        PUBLIC_URL,
    ])
    .await;
    let owner = signed_in(&app, "mailing-team").await;
    let mut members = MembersServiceClient::new(channel(&app).await);
    let request = pb::InviteMemberRequest {
        email: "new@example.com".into(),
        role: "editor".into(),
    };
    let reply = members.invite_member(owner.grpc_changing(request)).await;
    let reply = reply.expect("invited").into_inner();
    assert!(reply.mailed);
    let wait = std::time::Duration::from_secs(15);
    let mail = crate::fixtures::eventually("the invitation's mail", wait, || {
        let mails = sink.mails();
        async move { mails.into_iter().next() }
    })
    .await;
    assert_eq!(mail.to, ["new@example.com"]);
    let subject = crate::smtp_sink::header(&mail.data, "Subject").unwrap_or_default();
    assert!(subject.contains("mailing-team"), "{subject}");
    let token = token_in(&mail, &format!("{PUBLIC_URL}/app/invitation?token="));
    assert_eq!(token, reply.token, "the mailed link is the one shown");
    accept(&app, &token).await.expect("accepted");

    // Signing in again by mail reaches the invited person, in the account they joined.
    let mut sessions =
        forms::pb::sessions_service_client::SessionsServiceClient::new(channel(&app).await);
    let ask = pb::MailSignInLinkRequest {
        email: "NEW@example.com".into(),
        ..Default::default()
    };
    sessions.mail_sign_in_link(ask).await.expect("asked");
    let mail = crate::fixtures::eventually("the sign-in link's mail", wait, || {
        let mails = sink.mails();
        async move { mails.into_iter().nth(1) }
    })
    .await;
    let token = token_in(&mail, &format!("{PUBLIC_URL}/app/sign-in/link?token="));
    let redeem = pb::RedeemSignInLinkRequest { token };
    let signed = sessions
        .redeem_sign_in_link(redeem)
        .await
        .expect("signed in");
    let again = Session::of(signed.into_inner().session);
    let listed = members
        .list_members(again.call(pb::ListMembersRequest {}))
        .await
        .expect("listed")
        .into_inner();
    assert_eq!(listed.caller_role, "editor");
    let me = listed.members.iter().find(|m| m.is_caller).expect("me");
    assert_eq!(me.email, "new@example.com");
}

#[tokio::test]
async fn the_members_page_works_by_keyboard_at_390_and_1280_in_chromium() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = spawn(&[]).await;
    let owner = signed_in(&app, "keyboard-team").await;
    let form = app
        .create_form(
            &owner.key,
            &json!({"title": "Survey", "fields": [{"type": "short_text", "label": "Name"}]}),
        )
        .await;
    let form_id = form["id"].as_str().expect("id");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/members.mjs");
    let output = tokio::process::Command::new("node")
        .args([script, &owner.base, &owner.cookie, form_id])
        .output()
        .await
        .expect("running node");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    for width in ["390", "1280"] {
        assert_eq!(
            seen["roles"][width], "You are Viewer. Read forms and results, export.",
            "{seen}"
        );
    }
    assert_eq!(seen["builderPosts"], json!({"390": 0, "1280": 0}), "{seen}");
    assert_eq!(seen["axe"], json!([]), "{seen}");
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    assert_eq!(seen["sideways"], json!([]), "{seen}");
    let viewers = count(
        &app,
        "SELECT count(*) FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE a.name = $1 AND m.role = 'viewer'",
        "keyboard-team",
    )
    .await;
    assert_eq!(viewers, 2, "one viewer joined at each width");
}

#[tokio::test]
async fn invitations_past_use_are_purged_a_day_later_and_live_ones_stay() {
    let app = spawn(&[]).await;
    let owner = signed_in(&app, "purged-team").await;
    let spent = invite(&app, &owner, "spent@example.com", "viewer").await;
    accept(&app, &spent).await.expect("accepted");
    invite(&app, &owner, "old@example.com", "viewer").await;
    invite(&app, &owner, "live@example.com", "viewer").await;
    let backdated = sqlx::raw_sql(
        "UPDATE invitations SET spent_at = spent_at - interval '2 days'
          WHERE spent_at IS NOT NULL;
         UPDATE invitations SET expires_at = now() - interval '2 days', created_at = now() - interval '9 days'
          WHERE email = 'old@example.com'",
    );
    backdated.execute(&app.pool).await.expect("backdated");
    // Another instance purges at its start.
    let _purging = crate::harness::TestApp::spawn_on(app.db.clone(), &[]).await;
    let left = || async {
        sqlx::query_scalar::<_, String>("SELECT email FROM invitations ORDER BY email")
            .fetch_all(&app.pool)
            .await
            .expect("left")
    };
    let wait = std::time::Duration::from_secs(30);
    crate::fixtures::eventually("the purge", wait, || async {
        (left().await == ["live@example.com"]).then_some(())
    })
    .await;
}
