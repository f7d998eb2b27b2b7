//! Reading stored values into the core's types (plans, statuses, field types).

use crate::error::CoreError;

/// The error of a failed read. A stored value this build cannot decode (a plan, status
/// or field type it does not know, written by hand or by another version) becomes an
/// internal error that names the column and the value: it is logged with the request
/// id and never read as some default instead.
pub(crate) fn read_error(error: sqlx::Error) -> CoreError {
    match error {
        sqlx::Error::ColumnDecode { index, source } => CoreError::Internal(format!(
            "unknown value in the database, column {index}: {source}"
        )),
        other => CoreError::Database(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undecodable_values_are_internal_errors_that_name_them() {
        let error = sqlx::Error::ColumnDecode {
            index: "\"plan\"".into(),
            source: "invalid value \"gold\" for enum Plan".into(),
        };
        let CoreError::Internal(message) = read_error(error) else {
            panic!("expected an internal error");
        };
        assert!(
            message.contains("\"plan\"") && message.contains("gold"),
            "{message}"
        );
        assert!(matches!(
            read_error(sqlx::Error::RowNotFound),
            CoreError::Database(_)
        ));
    }
}
