//! Tokens and sessions: `POST /token`'s grants (`token`) and the signed-in user with their
//! session (`user`: `GET`/`PUT /user`, unlinking identities, logout).

pub(super) mod token;
pub(super) mod user;
