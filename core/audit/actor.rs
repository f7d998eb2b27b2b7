//! Who made a change, as the trail records it: built in one place from what the gate
//! knows of the caller (`Actor::of_caller`), or for the operator's admin calls and for
//! sign-in attempts, with the client's address and user agent. Never a secret: a key
//! is named by its id, a session by its id.

use crate::gate::Caller;
use std::net::IpAddr;
use uuid::Uuid;

/// The longest user agent kept (the rest is cut): a header is the client's to fill.
const USER_AGENT_CHARS: usize = 256;

/// What kind of party acted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ActorKind {
    /// An API key.
    Key,
    /// A dashboard session.
    Session,
    /// The operator (admin token, `formsd ...`).
    Operator,
    /// Someone signing in, not known yet.
    Visitor,
}

impl ActorKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Key => "key",
            Self::Session => "session",
            Self::Operator => "operator",
            Self::Visitor => "visitor",
        }
    }
}

/// Who acted, from where.
#[derive(Debug, Clone)]
pub(crate) struct Actor {
    pub kind: ActorKind,
    /// The account whose chain the entry joins; None: the instance's chain.
    pub account_id: Option<Uuid>,
    pub key_id: Option<Uuid>,
    pub session_id: Option<Uuid>,
    /// The member acting (issue 33 §1), once accounts have members.
    pub member_id: Option<Uuid>,
    pub client_ip: String,
    pub user_agent: String,
}

impl Actor {
    /// The actor of a call the gate admitted: its dashboard session when it came with
    /// one, else its key.
    pub(crate) fn of_caller(caller: &Caller, ip: IpAddr, user_agent: &str) -> Self {
        let (kind, key_id, session_id) = match &caller.dashboard {
            Some(dashboard) => (ActorKind::Session, None, Some(dashboard.session_id)),
            None => (ActorKind::Key, Some(caller.key_id), None),
        };
        Self {
            kind,
            account_id: Some(caller.account_id),
            key_id,
            session_id,
            member_id: caller.member.map(|member| member.person_id),
            client_ip: ip.to_string(),
            user_agent: clip(user_agent),
        }
    }

    /// The operator, acting on the instance (`on_account` names the account acted on).
    pub(crate) fn operator(ip: IpAddr, user_agent: &str) -> Self {
        Self::anonymous(ActorKind::Operator, ip, user_agent)
    }

    /// Someone signing in: the account is named once known (`on_account`).
    pub(crate) fn visitor(ip: IpAddr, user_agent: &str) -> Self {
        Self::anonymous(ActorKind::Visitor, ip, user_agent)
    }

    /// The same actor, acting on `account_id` (its entries join that account's chain).
    pub(crate) fn on_account(&self, account_id: Uuid) -> Self {
        Self {
            account_id: Some(account_id),
            ..self.clone()
        }
    }

    /// The same actor, in a dashboard session now known (a sign-in that succeeded).
    pub(crate) fn in_session(&self, account_id: Uuid, session_id: Uuid) -> Self {
        Self {
            account_id: Some(account_id),
            session_id: Some(session_id),
            ..self.clone()
        }
    }

    fn anonymous(kind: ActorKind, ip: IpAddr, user_agent: &str) -> Self {
        Self {
            kind,
            account_id: None,
            key_id: None,
            session_id: None,
            member_id: None,
            client_ip: ip.to_string(),
            user_agent: clip(user_agent),
        }
    }
}

fn clip(user_agent: &str) -> String {
    user_agent.chars().take(USER_AGENT_CHARS).collect()
}
