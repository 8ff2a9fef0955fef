//! `POST /token?grant_type=web3` (auth-js `signInWithWeb3`): a wallet's signed Sign-In with
//! Ethereum or Solana message (checked by [`web3_sign_in`]) signs in the `web3` identity
//! `web3:<chain>:<address>`, made with its user on first sign-in, as GoTrue does. `[auth.web3.*]
//! enabled` switches each chain on; `[auth.rate_limit] web3` bounds attempts per address.

use crate::error::{AuthError, ErrorCode, api, oauth, validation};
use crate::params::{Web3GrantParams, read, text};
use crate::service::{Auth, Request, WINDOW_SECS, never};
use serde_json::{Value, json};
use web3_sign_in::{self as web3, Chain};

/// The longest message GoTrue takes (20 KB).
const MAX_MESSAGE: usize = 20 * 1024;

impl Auth {
    /// `grant_type=web3`.
    pub async fn web3_grant(&self, r: &Request, body: &[u8]) -> Result<Value, AuthError> {
        let cfg = &self.cfg;
        // GoTrue counts every attempt, before anything else is looked at.
        self.limit(r, "web3", cfg.rate_limits.web3, WINDOW_SECS)
            .await?;
        if !cfg.web3.solana && !cfg.web3.ethereum {
            return Err(api(
                422,
                ErrorCode::Web3ProviderDisabled,
                "Web3 provider is disabled",
            ));
        }
        let p: Web3GrantParams = read(body)?;
        let chain = Chain::from_name(text(&p.chain))
            .ok_or_else(|| api(400, ErrorCode::Web3UnsupportedChain, "Unsupported chain"))?;
        let on = match chain {
            Chain::Ethereum => cfg.web3.ethereum,
            Chain::Solana => cfg.web3.solana,
        };
        if !on {
            return Err(api(
                422,
                ErrorCode::Web3ProviderDisabled,
                format!("{} Web3 provider is disabled", chain.title()),
            ));
        }
        let raw = text(&p.message);
        if raw.len() < 64 {
            return Err(validation("message is too short"));
        }
        if raw.len() > MAX_MESSAGE {
            return Err(validation("message must not exceed 20KB"));
        }
        let signature = text(&p.signature);
        let message = match chain {
            Chain::Ethereum => {
                if signature.strip_prefix("0x").unwrap_or(signature).len() != 130 {
                    return Err(validation(
                        "signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string",
                    ));
                }
                let m = web3::parse(chain, raw).map_err(|e| validation(e.to_string()))?;
                web3::ethereum_verify(&m, raw, signature).then_some(m)
            }
            Chain::Solana => {
                let bytes = web3::solana_signature(signature).map_err(validation)?;
                let m = web3::parse(chain, raw).map_err(|e| validation(e.to_string()))?;
                web3::solana_verify(&m, raw, &bytes).then_some(m)
            }
        };
        let m = message.ok_or_else(|| {
            oauth(
                "invalid_grant",
                "Signature does not match address in message",
            )
        })?;
        let now = chrono::Utc::now() + chrono::Duration::seconds(identity::clock::clock_offset());
        web3::check(&m, now, |u| crate::redirect::is_allowed(cfg, u))
            .map_err(|e| oauth("invalid_grant", e.to_string()))?;
        let sub = format!("web3:{}:{}", chain.name(), m.address);
        // GoTrue's identity data: the claims with the message's facts as custom claims.
        let statement = match (chain, &m.statement) {
            (_, Some(s)) => json!(s),
            (Chain::Ethereum, None) => Value::Null,
            (Chain::Solana, None) => json!(""),
        };
        let profile = json!({
            "sub": sub,
            "custom_claims": {
                "address": m.address,
                "chain": chain.name(),
                "network": m.chain_id.clone().unwrap_or_default(),
                "domain": m.domain,
                "statement": statement,
            },
            "email_verified": false,
            "phone_verified": false,
        });
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        self.in_tx(never, async |c| {
            let user = crate::identities::user_of(c, cfg, "web3", &profile, None).await?;
            crate::sessions::start(c, cfg, user, "web3", ua, addr).await
        })
        .await
    }
}
