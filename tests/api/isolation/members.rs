//! The members' rows of the matrix: B's session reaches none of A's members,
//! invitations or account, by page or gRPC (NOT_FOUND, as for ids that exist nowhere,
//! and A's rows unchanged); A's own calls get through (the positive control).

use super::*;
use ::forms::pb::members_service_client::MembersServiceClient;

/// A's members and pending invitations, counted: what no stranger may change.
async fn a_state(app: &TestApp, a: &Tenant) -> (i64, i64, Vec<String>) {
    let account = &a.key.account;
    let count = |sql: &'static str| async move {
        sqlx::query_scalar::<_, i64>(sql)
            .bind(account)
            .fetch_one(&app.pool)
            .await
            .expect("count")
    };
    let members = count("SELECT count(*) FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE a.name = $1").await;
    let pending = count("SELECT count(*) FROM invitations i JOIN accounts a ON a.id = i.account_id WHERE a.name = $1 AND spent_at IS NULL").await;
    let roles = sqlx::query_scalar::<_, String>(
        "SELECT m.role FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE a.name = $1 ORDER BY m.person_id",
    )
    .bind(account)
    .fetch_all(&app.pool)
    .await
    .expect("roles");
    (members, pending, roles)
}

async fn account_id(app: &TestApp, name: &str) -> String {
    sqlx::query_scalar::<_, uuid::Uuid>("SELECT id FROM accounts WHERE name = $1")
        .bind(name)
        .fetch_one(&app.pool)
        .await
        .expect("account")
        .to_string()
}

pub(super) async fn member_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    (a, b): (&Tenant, &Tenant),
) {
    let da = signed_in(app, &a.key.account).await;
    let db = signed_in(app, &b.key.account).await;
    let members = MembersServiceClient::new(channel.clone());
    let invite = |email: &str| pb::InviteMemberRequest {
        email: email.into(),
        role: "viewer".into(),
    };
    // A has a second member and a pending invitation, for B to aim at.
    let row = "forms.v1.MembersService/InviteMember";
    let made = members
        .clone()
        .invite_member(da.grpc_changing(invite("mate@a.example")))
        .await;
    let token = m
        .grpc_ok(row, "A's mate", made)
        .map(|r| r.token)
        .unwrap_or_default();
    let row = "forms.v1.MembersService/GetInvitation";
    let peek = |token: &str| pb::GetInvitationRequest {
        token: token.into(),
    };
    let shown = members
        .clone()
        .get_invitation(tonic::Request::new(peek(&token)))
        .await;
    m.grpc_ok(row, "A's mate's link", shown);
    let refused = members
        .clone()
        .get_invitation(db.grpc(peek("not-a-token"), false))
        .await;
    m.grpc_not_found(row, "B", "a bogus token", &refused);
    let row = "forms.v1.MembersService/AcceptInvitation";
    let accept = pb::AcceptInvitationRequest { token };
    let accepted = members
        .clone()
        .accept_invitation(tonic::Request::new(accept))
        .await;
    m.grpc_ok(row, "A's mate accepts", accepted);
    let bogus = pb::AcceptInvitationRequest {
        token: "not-a-token".into(),
    };
    let refused = members
        .clone()
        .accept_invitation(db.grpc_changing(bogus))
        .await;
    m.grpc_not_found(row, "B", "a bogus token", &refused);
    let row = "forms.v1.MembersService/InviteMember";
    let pending = members
        .clone()
        .invite_member(da.grpc_changing(invite("later@a.example")))
        .await;
    let invitation = m
        .grpc_ok(row, "A's pending", pending)
        .and_then(|r| r.invitation)
        .map(|i| i.id)
        .unwrap_or_default();
    let listed = members
        .clone()
        .list_members(da.grpc(pb::ListMembersRequest {}, false))
        .await;
    let row = "forms.v1.MembersService/ListMembers";
    let a_listed = m.grpc_ok(row, "A's members", listed).unwrap_or_default();
    let mate = a_listed
        .members
        .iter()
        .find(|p| p.email == "mate@a.example")
        .map(|p| p.person_id.clone())
        .unwrap_or_default();
    let a_owner = a_listed
        .members
        .iter()
        .find(|p| p.is_caller)
        .map(|p| p.person_id.clone())
        .unwrap_or_default();
    let a_account = account_id(app, &a.key.account).await;
    let before = a_state(app, a).await;

    // -- B, by gRPC: nothing of A's is found, and B's own list names none of A's.
    let b_list = members
        .clone()
        .list_members(db.grpc(pb::ListMembersRequest {}, false))
        .await;
    let text = format!("{:?}", m.grpc_ok(row, "B's members", b_list));
    m.expect(
        row,
        !text.contains(&mate) && !text.contains("a.example"),
        || format!("ISOLATION BUG: B's ListMembers shows A's: {text}"),
    );
    let row = "forms.v1.MembersService/ListMyAccounts";
    let mine = members
        .clone()
        .list_my_accounts(db.grpc(pb::ListMyAccountsRequest {}, false))
        .await;
    let text = format!("{:?}", m.grpc_ok(row, "B's accounts", mine));
    m.expect(row, !text.contains(&a_account), || {
        format!("ISOLATION BUG: B's ListMyAccounts shows A's account: {text}")
    });
    let row = "forms.v1.MembersService/ChangeMemberRole";
    let change = |person: &str| pb::ChangeMemberRoleRequest {
        person_id: person.into(),
        role: "admin".into(),
    };
    let refused = members
        .clone()
        .change_member_role(db.grpc_changing(change(&mate)))
        .await;
    m.grpc_not_found(row, "B", "A's member", &refused);
    let row = "forms.v1.MembersService/RemoveMember";
    let remove = |person: &str| pb::RemoveMemberRequest {
        person_id: person.into(),
    };
    let refused = members
        .clone()
        .remove_member(db.grpc_changing(remove(&a_owner)))
        .await;
    m.grpc_not_found(row, "B", "A's owner", &refused);
    let row = "forms.v1.MembersService/RevokeInvitation";
    let revoke = |id: &str| pb::RevokeInvitationRequest { id: id.into() };
    let refused = members
        .clone()
        .revoke_invitation(db.grpc_changing(revoke(&invitation)))
        .await;
    m.grpc_not_found(row, "B", "A's invitation", &refused);
    let row = "forms.v1.MembersService/SwitchAccount";
    let switch = |id: &str| pb::SwitchAccountRequest {
        account_id: id.into(),
    };
    let refused = members
        .clone()
        .switch_account(db.grpc_changing(switch(&a_account)))
        .await;
    m.grpc_not_found(row, "B", "A's account", &refused);
    let row = "forms.v1.MembersService/LeaveAccount";
    let left = members
        .clone()
        .leave_account(db.grpc_changing(pb::LeaveAccountRequest {}))
        .await;
    m.expect(
        row,
        left.as_ref().is_err_and(|e| e.message().contains("owner")),
        || format!("B, B's last owner, left B: {left:?}"),
    );
    m.allowed.insert(row);

    // -- B, by page: the same, as the page for ids that exist nowhere.
    for (row, path, fields) in [
        (
            "POST /app/members/{person_id}/role",
            format!("/app/members/{mate}/role"),
            vec![("role", "admin")],
        ),
        (
            "POST /app/members/{person_id}/remove",
            format!("/app/members/{a_owner}/remove"),
            vec![],
        ),
        (
            "POST /app/invitations/{invitation_id}/revoke",
            format!("/app/invitations/{invitation}/revoke"),
            vec![],
        ),
        (
            "POST /app/accounts/switch",
            "/app/accounts/switch".to_owned(),
            vec![("account_id", a_account.as_str())],
        ),
    ] {
        let reply = db.post(&path, &fields).await;
        m.expect(
            row,
            reply.status == 404 && !reply.text.contains(&mate),
            || {
                format!(
                    "ISOLATION BUG: {path} as B's session: expected 404, got {} {}",
                    reply.status, reply.text
                )
            },
        );
        m.refused.insert(row);
    }
    let row = "GET /app/members";
    let page = db.get("/app/members").await;
    m.rest_status(row, "B", "/app/members", &page, 200);
    m.expect(row, !page.text.contains("a.example"), || {
        format!("ISOLATION BUG: B's members page shows A's: {}", page.text)
    });
    let row = "POST /app/members/invite";
    let page = db
        .post(
            "/app/members/invite",
            &[("email", "own@b.example"), ("role", "viewer")],
        )
        .await;
    m.rest_status(row, "B", "/app/members/invite", &page, 200);
    let row = "POST /app/members/leave";
    let page = db.post("/app/members/leave", &[]).await;
    m.expect(row, page.status == 422, || {
        format!("B's last owner left B: {} {}", page.status, page.text)
    });
    m.allowed.insert(row);
    for (row, reply) in [
        (
            "GET /app/invitation",
            db.get("/app/invitation?token=bogus").await,
        ),
        (
            "POST /app/invitation",
            db.post("/app/invitation", &[("token", "bogus")]).await,
        ),
    ] {
        m.expect(row, !reply.text.contains(&a.key.account), || {
            format!("{row} names A: {}", reply.text)
        });
    }
    m.expect(
        "POST /app/invitation",
        a_state(app, a).await == before,
        || "ISOLATION BUG: B changed A's members or invitations".to_owned(),
    );

    // -- A's own: the positive controls, changing A's own only.
    let row = "POST /app/members/{person_id}/role";
    let path = format!("/app/members/{mate}/role");
    let reply = da.post(&path, &[("role", "editor")]).await;
    m.rest_status(row, "A", &path, &reply, 303);
    let row = "forms.v1.MembersService/ChangeMemberRole";
    let changed = members
        .clone()
        .change_member_role(da.grpc_changing(change(&mate)))
        .await;
    m.grpc_ok(row, "A's mate", changed);
    let row = "POST /app/invitations/{invitation_id}/revoke";
    let path = format!("/app/invitations/{invitation}/revoke");
    m.rest_status(row, "A", &path, &da.post(&path, &[]).await, 303);
    let row = "forms.v1.MembersService/RevokeInvitation";
    let again = members
        .clone()
        .invite_member(da.grpc_changing(invite("again@a.example")))
        .await;
    let again = again
        .ok()
        .and_then(|r| r.into_inner().invitation)
        .map(|i| i.id)
        .unwrap_or_default();
    m.grpc_ok(
        row,
        "A's invitation",
        members
            .clone()
            .revoke_invitation(da.grpc_changing(revoke(&again)))
            .await,
    );
    let row = "POST /app/members/{person_id}/remove";
    let path = format!("/app/members/{mate}/remove");
    m.rest_status(row, "A", &path, &da.post(&path, &[]).await, 303);
    let row = "forms.v1.MembersService/RemoveMember";
    let third = members
        .clone()
        .invite_member(da.grpc_changing(invite("third@a.example")))
        .await;
    let token = third.map(|r| r.into_inner().token).unwrap_or_default();
    let joined = members
        .clone()
        .accept_invitation(tonic::Request::new(pb::AcceptInvitationRequest { token }))
        .await;
    let third_listed = members
        .clone()
        .list_members(da.grpc(pb::ListMembersRequest {}, false))
        .await;
    let third = third_listed
        .ok()
        .and_then(|r| {
            r.into_inner()
                .members
                .into_iter()
                .find(|p| p.email == "third@a.example")
        })
        .map(|p| p.person_id)
        .unwrap_or_default();
    m.expect(row, joined.is_ok(), || {
        "A's third member did not join".to_owned()
    });
    m.grpc_ok(
        row,
        "A's third member",
        members
            .clone()
            .remove_member(da.grpc_changing(remove(&third)))
            .await,
    );
    let row = "forms.v1.MembersService/SwitchAccount";
    let switched = members
        .clone()
        .switch_account(da.grpc_changing(switch(&a_account)))
        .await;
    m.grpc_ok(row, "A's own account", switched);
    let row = "POST /app/accounts/switch";
    let da = signed_in(app, &a.key.account).await;
    let reply = da
        .post(
            "/app/accounts/switch",
            &[("account_id", a_account.as_str())],
        )
        .await;
    m.rest_status(row, "A", "/app/accounts/switch", &reply, 303);
}
