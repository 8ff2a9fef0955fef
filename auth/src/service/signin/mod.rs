//! Signing up and in: `POST /signup` (`signup`), e-mailed links and codes (`mails`), their
//! `/verify` (`verify`), phone numbers and texted codes (`phone`) and Web3 wallets (`web3`).

pub(super) mod mails;
pub(crate) mod phone;
pub(super) mod signup;
pub(super) mod verify;
pub(super) mod web3;
