//! Which member may call what: a member's role, and the one table that gives every gRPC
//! method of the core the least role that may call it (issue 33 §1). The gate reads the
//! method from the request (`mark_method` names it on the way in, for the network and
//! the edges' in-process calls alike) and checks a member's role against the table on
//! every call; API keys keep their scopes. A unit test fails when a method of any
//! service has no row, so that a new method cannot slip past the roles.

use crate::error::CoreError;
use std::str::FromStr;

/// A member's role in an account; ordered, each including the ones below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Reads forms and results, exports.
    Viewer,
    /// Builds, publishes, closes and deletes forms; reads results.
    Editor,
    /// Keys, webhooks, and the members below owner.
    Admin,
    /// Everything, members included.
    Owner,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Viewer => "viewer",
            Self::Editor => "editor",
            Self::Admin => "admin",
            Self::Owner => "owner",
        }
    }
}

impl FromStr for Role {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, CoreError> {
        match s {
            "viewer" => Ok(Self::Viewer),
            "editor" => Ok(Self::Editor),
            "admin" => Ok(Self::Admin),
            "owner" => Ok(Self::Owner),
            other => Err(CoreError::validation(format!(
                "unknown role {other:?}; expected owner, admin, editor or viewer"
            ))),
        }
    }
}

/// Who may call a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Members with this role or a higher one (and API keys, by their scopes).
    Member(Role),
    /// The operator's admin token; no member, whatever their role.
    Operator,
    /// No caller to check: the public pages' and sign-in's methods (they check what
    /// they need themselves), and the edge's own reports.
    Anyone,
}

/// The gRPC path of the call in flight (`/forms.v1.FormsService/ListForms`), put in
/// the request's extensions by [`mark_method`].
#[derive(Debug, Clone)]
pub(crate) struct MethodPath(pub String);

/// Names the method of every call for the gate, before tonic takes the request apart.
pub(crate) async fn mark_method(
    mut req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let path = MethodPath(req.uri().path().to_owned());
    req.extensions_mut().insert(path);
    next.run(req).await
}

/// The permission of a method by its gRPC path; a method without a row (none should
/// be: see the test) is the owner's alone, so that nothing unlisted is open to members.
pub(crate) fn of_path(path: Option<&str>) -> Permission {
    path.and_then(|p| p.strip_prefix("/forms.v1."))
        .and_then(|p| p.split_once('/'))
        .and_then(|(service, method)| of(service, method))
        .unwrap_or(Permission::Member(Role::Owner))
}

/// The permission of a method, by its service and method names.
pub fn of(service: &str, method: &str) -> Option<Permission> {
    TABLE
        .iter()
        .find(|(s, m, _)| *s == service && *m == method)
        .map(|(_, _, permission)| *permission)
}

/// The whole table, for the isolation tests' role axis.
pub fn table() -> &'static [(&'static str, &'static str, Permission)] {
    TABLE
}

use Permission::{Anyone, Member, Operator};
use Role::{Admin, Editor, Owner, Viewer};

/// Every method of every service, and who may call it.
const TABLE: &[(&str, &str, Permission)] = &[
    ("FormsService", "ListForms", Member(Viewer)),
    ("FormsService", "GetForm", Member(Viewer)),
    ("FormsService", "CreateForm", Member(Editor)),
    ("FormsService", "UpdateForm", Member(Editor)),
    ("FormsService", "DeleteForm", Member(Editor)),
    ("FormsService", "SetFormLogo", Member(Editor)),
    ("ResponsesService", "ListResponses", Member(Viewer)),
    ("ResponsesService", "GetResponse", Member(Viewer)),
    ("ResponsesService", "CreateResponse", Member(Editor)),
    ("ResponsesService", "DeleteResponse", Member(Admin)),
    ("ResponsesService", "GetResponseFile", Member(Viewer)),
    ("ResponsesService", "ExportResponses", Member(Viewer)),
    ("ResponsesService", "GetFormSummary", Member(Viewer)),
    ("ResponsesService", "EraseRespondent", Member(Admin)),
    ("UsageService", "GetUsage", Member(Viewer)),
    // The edge reports a request it refused, under the caller's key.
    ("GatewayService", "RejectRequest", Anyone),
    ("WebhooksService", "ListWebhooks", Member(Viewer)),
    ("WebhooksService", "CreateWebhook", Member(Admin)),
    ("WebhooksService", "DeleteWebhook", Member(Admin)),
    ("AuditService", "ListAuditEntries", Member(Admin)),
    ("AuditService", "ExportAuditEntries", Member(Admin)),
    ("AuditAdminService", "VerifyAuditTrail", Operator),
    ("AccountArchiveService", "ExportAccount", Operator),
    ("AccountArchiveService", "ImportAccount", Operator),
    ("AdminService", "GetAccount", Operator),
    ("AdminService", "UpdateAccount", Operator),
    ("AdminService", "CreateKey", Operator),
    ("AdminService", "RevokeKey", Operator),
    ("AdminService", "ListKeys", Operator),
    ("AdminService", "LinkIdentity", Operator),
    ("AdminService", "UnlinkIdentity", Operator),
    ("NotificationAdminService", "ListNotifications", Operator),
    ("WebhookAdminService", "UpdateWebhook", Operator),
    ("WebhookAdminService", "ListDeliveries", Operator),
    ("WebhookAdminService", "RetryDelivery", Operator),
    ("SessionsService", "CreateSignInLink", Operator),
    ("SessionsService", "MailSignInLink", Anyone),
    ("SessionsService", "RedeemSignInLink", Anyone),
    ("SessionsService", "SignInWithProviderCookie", Anyone),
    ("SessionsService", "BeginOidcSignIn", Anyone),
    ("SessionsService", "FinishOidcSignIn", Anyone),
    ("SessionsService", "GetSession", Member(Viewer)),
    ("SessionsService", "EndSession", Member(Viewer)),
    ("MembersService", "ListMembers", Member(Viewer)),
    ("MembersService", "InviteMember", Member(Admin)),
    ("MembersService", "RevokeInvitation", Member(Admin)),
    // The invitee may have no session yet: the link is the credential.
    ("MembersService", "GetInvitation", Anyone),
    ("MembersService", "AcceptInvitation", Anyone),
    ("MembersService", "ChangeMemberRole", Member(Admin)),
    ("MembersService", "RemoveMember", Member(Admin)),
    ("MembersService", "LeaveAccount", Member(Viewer)),
    ("MembersService", "ListMyAccounts", Member(Viewer)),
    ("MembersService", "SwitchAccount", Member(Viewer)),
    ("OwnerService", "GetOwnAccount", Member(Viewer)),
    ("OwnerService", "UnlinkOwnIdentity", Member(Owner)),
    ("OwnerService", "SetOwnDefaultTheme", Member(Editor)),
    ("OwnerService", "ListOwnKeys", Member(Admin)),
    ("OwnerService", "CreateOwnKey", Member(Admin)),
    ("OwnerService", "RevokeOwnKey", Member(Admin)),
    ("OwnerService", "UpdateOwnAccount", Member(Owner)),
    ("OwnerService", "GetOwnKeyUsage", Member(Admin)),
    ("OwnerService", "UpdateOwnWebhook", Member(Admin)),
    ("OwnerService", "ListOwnDeliveries", Member(Admin)),
    ("OwnerService", "RetryOwnDelivery", Member(Admin)),
    ("OwnerService", "SendOwnDeliveryNow", Member(Admin)),
    ("OwnerService", "SendTestEvent", Member(Admin)),
    ("OwnerService", "GetFormActivity", Member(Viewer)),
    ("HostedFormsService", "GetHostedForm", Anyone),
    ("HostedFormsService", "SubmitHostedForm", Anyone),
    ("HostedFormsService", "AdmitHostedSubmission", Anyone),
    ("HostedFormsService", "SubmitToEndpoint", Anyone),
    ("HostedFormsService", "AdmitEndpointSubmission", Anyone),
    ("HostedFormsService", "CheckEndpointOrigin", Anyone),
    ("HostedFormsService", "GetEndpointChallenge", Anyone),
    ("HostedFormsService", "GetHostedTheme", Anyone),
    ("HostedFormsService", "GetHostedLogo", Anyone),
];

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    /// Every method of every `forms.v1` service, from the descriptor set the server's
    /// reflection serves.
    fn methods() -> Vec<(String, String)> {
        let set = prost_types::FileDescriptorSet::decode(crate::pb::FILE_DESCRIPTOR_SET)
            .unwrap_or_default();
        set.file
            .iter()
            .filter(|f| f.package() == "forms.v1")
            .flat_map(|f| f.service.iter())
            .flat_map(|s| {
                s.method
                    .iter()
                    .map(move |m| (s.name().to_owned(), m.name().to_owned()))
            })
            .collect()
    }

    #[test]
    fn every_method_has_a_permission() {
        let methods = methods();
        assert!(methods.len() > 50, "the descriptor set lists the services");
        let missing: Vec<_> = methods.iter().filter(|(s, m)| of(s, m).is_none()).collect();
        assert!(
            missing.is_empty(),
            "methods without a permission: {missing:?}"
        );
    }

    #[test]
    fn every_row_names_a_method() {
        let methods = methods();
        for (service, method, _) in TABLE {
            assert!(
                methods.iter().any(|(s, m)| s == service && m == method),
                "{service}/{method} is in the table but no service has it"
            );
        }
    }

    #[test]
    fn a_path_resolves_and_an_unknown_one_is_the_owners() {
        assert_eq!(
            of_path(Some("/forms.v1.FormsService/CreateForm")),
            Member(Editor)
        );
        assert_eq!(of_path(Some("/forms.v1.FormsService/Nope")), Member(Owner));
        assert_eq!(of_path(None), Member(Owner));
    }

    #[test]
    fn roles_are_ordered() {
        assert!(Owner > Admin && Admin > Editor && Editor > Viewer);
        assert_eq!("editor".parse::<Role>().ok(), Some(Editor));
    }
}
