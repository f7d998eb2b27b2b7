//! The role axis of the isolation matrix (issue 33 §1): every gRPC method of the core,
//! called over the network by a member of each role (owner, admin, editor, viewer, each
//! with a dashboard session and its CSRF token), is refused with INSUFFICIENT_SCOPE
//! exactly when `permissions::table()` says the role is below the method's, and never
//! refused for the role when it is not. The REST API and the dashboard reach the core
//! through these same methods and the same gate, so the table is theirs too.
//!
//! Each call sends an empty message: every request type reads it (all fields at their
//! defaults), and the gate decides before the message is looked at. Methods the table
//! gives to the operator are refused to every member; methods open to anyone are the
//! sign-in's and the public pages', and are called too (no member is refused them).
//! Ending one's session and leaving the account are called last, as they end the
//! caller.

use crate::dashboard_session::{channel, signed_in, spawn};
use crate::members::{Session, accept, invite};
use forms::permissions::{self, Permission, Role};
use prost::Message;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// How a method streams, from the descriptor set.
#[derive(Clone, Copy, Debug)]
enum Streaming {
    Unary,
    Server,
    Client,
}

fn streaming_of(service: &str, method: &str) -> Streaming {
    let set = prost_types::FileDescriptorSet::decode(forms::pb::FILE_DESCRIPTOR_SET)
        .expect("the descriptor set");
    let found = set
        .file
        .iter()
        .filter(|f| f.package() == "forms.v1")
        .flat_map(|f| &f.service)
        .filter(|s| s.name() == service)
        .flat_map(|s| &s.method)
        .find(|m| m.name() == method)
        .unwrap_or_else(|| panic!("{service}/{method} in the descriptor set"));
    match (found.client_streaming(), found.server_streaming()) {
        (true, _) => Streaming::Client,
        (false, true) => Streaming::Server,
        (false, false) => Streaming::Unary,
    }
}

/// Calls `/forms.v1.{service}/{method}` with an empty message as `session`.
async fn call(
    channel: &tonic::transport::Channel,
    (service, method): (&str, &str),
    session: &Session,
) -> Result<(), Status> {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let path =
        PathAndQuery::try_from(format!("/forms.v1.{service}/{method}")).expect("a method path");
    let codec = tonic_prost::ProstCodec::<(), ()>::default();
    match streaming_of(service, method) {
        Streaming::Unary => {
            let request = session.call(());
            grpc.unary(request, path, codec).await.map(drop)
        }
        Streaming::Server => {
            let request = session.call(());
            let mut stream = grpc
                .server_streaming(request, path, codec)
                .await?
                .into_inner();
            // A refusal may come as the stream's first item.
            stream.message().await.map(drop)
        }
        Streaming::Client => {
            let messages = tokio_stream::iter([()]);
            let request = session.call(messages);
            grpc.client_streaming(request, path, codec).await.map(drop)
        }
    }
}

fn refused_for_role(result: &Result<(), Status>) -> bool {
    result.as_ref().is_err_and(|status| {
        status.code() == Code::PermissionDenied
            && status
                .get_details_error_info()
                .is_some_and(|i| i.reason == "INSUFFICIENT_SCOPE")
            && status.message().contains("role")
    })
}

/// The operator's refusal of a member: their services have no gate and answer
/// ADMIN_DENIED; their methods behind the gate, INSUFFICIENT_SCOPE.
fn operator_only(result: &Result<(), Status>) -> bool {
    result.as_ref().is_err_and(|status| {
        let reason = status.get_details_error_info().map(|i| i.reason);
        matches!(
            reason.as_deref(),
            Some("ADMIN_DENIED" | "INSUFFICIENT_SCOPE")
        )
    })
}

/// Methods that end the caller: called last, each role once.
const ENDING: &[(&str, &str)] = &[
    ("MembersService", "LeaveAccount"),
    ("SessionsService", "EndSession"),
];

#[tokio::test]
async fn every_method_answers_each_role_as_the_table_says() {
    let app = spawn(&[]).await;
    let owner = signed_in(&app, "roles-team").await;
    let mut members = vec![(
        Role::Owner,
        Session {
            token: owner.session().to_owned(),
            csrf: owner.csrf.clone(),
        },
    )];
    for (role, name) in [
        (Role::Admin, "admin"),
        (Role::Editor, "editor"),
        (Role::Viewer, "viewer"),
    ] {
        let token = invite(&app, &owner, &format!("{name}@roles.example"), name).await;
        members.push((role, accept(&app, &token).await.expect("accepted")));
    }
    let channel = channel(&app).await;
    let mut cells = 0;
    let mut wrong = Vec::new();
    let table = permissions::table();
    type Row = (&'static str, &'static str, Permission);
    let (ending, rest): (Vec<&Row>, Vec<&Row>) = table
        .iter()
        .partition(|(s, m, _)| ENDING.contains(&(*s, *m)));
    for row in rest.into_iter().chain(ending) {
        let (service, method, permission): (&str, &str, Permission) = *row;
        for (role, session) in &members {
            // The owner is the account's last: its leaving is the lifecycle test's.
            if (service, method) == ENDING[0] && *role == Role::Owner {
                continue;
            }
            let result = call(&channel, (service, method), session).await;
            let expected_refusal = match permission {
                Permission::Member(least) => *role < least,
                Permission::Operator => true,
                Permission::Anyone => false,
            };
            let ok = match permission {
                Permission::Operator => operator_only(&result),
                _ => refused_for_role(&result) == expected_refusal,
            };
            cells += 1;
            if !ok {
                wrong.push(format!("{service}/{method} as {role:?}: {result:?}"));
            }
        }
    }
    eprintln!(
        "roles: {} methods × {} roles: {cells} cells",
        table.len(),
        members.len()
    );
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
