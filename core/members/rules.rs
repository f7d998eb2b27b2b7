//! Who may do what to whom among an account's members: a pure rule, no I/O. The gate
//! has already checked the method's least role (`gate::permissions`); these are the
//! rules that depend on the member acted on as well as on the one acting.

use crate::error::CoreError;
use crate::gate::Role;

/// Whether `actor` may give `role` to someone (an invitation, a change of role):
/// owners give any role, admins any below owner.
pub(crate) fn may_give(actor: Role, role: Role) -> Result<(), CoreError> {
    if role == Role::Owner && actor < Role::Owner {
        return Err(CoreError::InsufficientRole("owner"));
    }
    Ok(())
}

/// Whether `actor` may change or remove a member whose role is `theirs`: admins act
/// on the members below owner only.
pub(crate) fn may_touch(actor: Role, theirs: Role) -> Result<(), CoreError> {
    may_give(actor, theirs)
}

/// Whether an account with `owners` owners keeps one when a member whose role is
/// `theirs` becomes `becomes` (`None`: leaves or is removed).
pub(crate) fn keeps_an_owner(
    owners: usize,
    theirs: Role,
    becomes: Option<Role>,
) -> Result<(), CoreError> {
    let loses_one = theirs == Role::Owner && becomes != Some(Role::Owner);
    if loses_one && owners <= 1 {
        return Err(CoreError::validation(
            "an account keeps at least one owner: make another member owner first",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use Role::{Admin, Editor, Owner, Viewer};

    #[test]
    fn admins_give_and_touch_every_role_below_owner() {
        for role in [Admin, Editor, Viewer] {
            assert!(may_give(Admin, role).is_ok());
            assert!(may_touch(Admin, role).is_ok());
        }
        assert!(matches!(
            may_give(Admin, Owner),
            Err(CoreError::InsufficientRole("owner"))
        ));
        assert!(may_touch(Admin, Owner).is_err());
        assert!(may_give(Owner, Owner).is_ok());
        assert!(may_touch(Owner, Owner).is_ok());
    }

    #[test]
    fn the_last_owner_stays() {
        assert!(keeps_an_owner(1, Owner, None).is_err());
        assert!(keeps_an_owner(1, Owner, Some(Admin)).is_err());
        assert!(keeps_an_owner(1, Owner, Some(Owner)).is_ok());
        assert!(keeps_an_owner(2, Owner, None).is_ok());
        assert!(keeps_an_owner(1, Admin, None).is_ok());
    }
}
