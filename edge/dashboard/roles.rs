//! The roles as the pages speak of them: their names, what each may do in words, and
//! whether a role reaches another (what a page offers). The core's gate is the rule
//! (`core/gate/permissions.rs`): a page that offers too much is refused there, one
//! that offers too little hides what the role could do, so the two are held together
//! by `tests/api/roles_pages.rs`.

use forms::pb;

/// The roles, highest first, with what each may do in words.
pub(super) const ROLES: &[(&str, &str)] = &[
    ("owner", "Everything, members included"),
    ("admin", "API keys, webhooks, and members below owner"),
    (
        "editor",
        "Build, publish, close and delete forms; read results",
    ),
    ("viewer", "Read forms and results, export"),
];

/// A role's place in [`ROLES`] (0 is the highest); past the end for no role.
pub(super) fn rank(role: &str) -> usize {
    ROLES
        .iter()
        .position(|(r, _)| *r == role)
        .unwrap_or(ROLES.len())
}

/// "Editor" for "editor".
pub(super) fn role_name(role: &str) -> String {
    let mut chars = role.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().collect::<String>() + chars.as_str()
    })
}

/// "an admin", "a viewer".
pub(super) fn a(role: &str) -> String {
    let article = if role.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {role}")
}

/// What `role` may do, in words ("" for no role).
pub(super) fn does(role: &str) -> &'static str {
    ROLES.get(rank(role)).map_or("", |(_, words)| words)
}

/// Whether the session's role is `least` or higher.
pub(super) fn may(session: &pb::DashboardSession, least: &str) -> bool {
    rank(&session.role) <= rank(least)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_reaches_those_below_it_and_no_role_reaches_none() {
        let as_role = |role: &str| pb::DashboardSession {
            role: role.to_owned(),
            ..Default::default()
        };
        assert!(may(&as_role("owner"), "admin"));
        assert!(may(&as_role("editor"), "editor"));
        assert!(!may(&as_role("editor"), "admin"));
        assert!(!may(&as_role("viewer"), "editor"));
        assert!(!may(&as_role(""), "viewer"));
        assert_eq!(
            (a("admin"), a("viewer")),
            ("an admin".into(), "a viewer".into())
        );
        assert_eq!(
            does("editor"),
            "Build, publish, close and delete forms; read results"
        );
    }
}
