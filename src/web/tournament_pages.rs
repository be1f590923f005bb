//! The tournaments' pages (issue 31): the public standings page.

use axum::Router;

use crate::steward::Steward;

/// The tournament pages.
pub(super) fn router() -> Router<Steward> {
    Router::new()
}
