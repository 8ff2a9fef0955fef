//! `logs --follow`: the running gateway's request inspector, one request per line, with the
//! role it ran as, the SQL and what row level security did (`--json`: the events as they come).

use super::CommandError;
use gateway::config::Config;
use serde_json::Value;

/// One event as a few lines for people.
pub fn render(e: &Value) -> String {
    let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
    let at = s("at");
    let time = at.get(11..23).unwrap_or(&at);
    let mut out = format!(
        "{time} {} {} → {} {} ms  {}",
        s("method"),
        s("path"),
        e["status"],
        e["ms"],
        e["role"].as_str().unwrap_or("-"),
    );
    if let Some(sub) = e["sub"].as_str() {
        out.push_str(&format!(" ({sub})"));
    }
    if let Some(b) = e["branch"].as_str() {
        out.push_str(&format!("  [branch {b}]"));
    }
    if let Some(err) = e["error"].as_object() {
        out.push_str(&format!(
            "\n    error {}: {}",
            err["code"].as_str().unwrap_or_default(),
            err["message"].as_str().unwrap_or_default()
        ));
    }
    let rls = &e["rls"];
    if let Some(why) = rls["denied"].as_str() {
        out.push_str(&format!("\n    denied: {why}"));
    } else if let (Some(seen), Some(all)) = (rls["visible"].as_i64(), rls["without_rls"].as_i64()) {
        let applying: Vec<&str> = rls["policies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["applies"].as_bool() == Some(true))
            .filter_map(|p| p["name"].as_str())
            .collect();
        let policies = if applying.is_empty() {
            "no policy applies: every row is hidden".to_string()
        } else {
            format!("policies: {}", applying.join(", "))
        };
        out.push_str(&format!(
            "\n    rls on {}: {seen} of {all} rows visible ({policies})",
            rls["table"].as_str().unwrap_or_default()
        ));
    }
    if let Some(sql) = e["sql"].as_str() {
        out.push_str(&format!("\n    sql: {sql}"));
        if let Some(p) = e["params"].as_array().filter(|p| !p.is_empty()) {
            out.push_str(&format!("\n    params: {}", Value::Array(p.clone())));
        }
    }
    out
}

pub async fn follow(cfg: &Config, follow: bool, json: bool) -> Result<(), CommandError> {
    if !follow {
        return Err(CommandError::Usage(
            "supagate keeps no request log: `supagate logs --follow` shows requests as they come"
                .into(),
        ));
    }
    let values = super::status::running_values(cfg)?;
    let (api, key) = (
        values
            .get("API_URL")
            .ok_or_else(|| CommandError::Message("no API_URL in the status file".into()))?,
        values
            .get("SERVICE_ROLE_KEY")
            .ok_or_else(|| CommandError::Message("no service key in the status file".into()))?,
    );
    let mut res = reqwest::Client::new()
        .get(format!("{api}/_supagate/v1/requests"))
        .header("apikey", key)
        .send()
        .await
        .map_err(|e| CommandError::other(format!("cannot reach {api}"), e))?;
    if !res.status().is_success() {
        return Err(CommandError::Message(format!(
            "{api} answered {}: {}",
            res.status(),
            res.text().await.unwrap_or_default()
        )));
    }
    eprintln!("Following requests to {api} (Ctrl-C ends)…");
    let mut buf = String::new();
    loop {
        let chunk = tokio::select! {
            c = res.chunk() => c.map_err(|e| CommandError::other("the gateway went away", e))?,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let Some(chunk) = chunk else {
            return Err(CommandError::Message("the gateway stopped".into()));
        };
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            for data in block.lines().filter_map(|l| l.strip_prefix("data: ")) {
                if json {
                    println!("{data}");
                } else if let Ok(e) = serde_json::from_str::<Value>(data) {
                    println!("{}", render(&e));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_for_people() {
        let e = serde_json::json!({
            "at": "2026-11-24T16:29:24.506Z", "method": "GET", "path": "/rest/v1/notes",
            "status": 200, "ms": 3.5, "role": "authenticated", "sub": "u1", "branch": "w1",
            "sql": "SELECT 1", "params": ["5"],
            "rls": {"table": "public.notes", "visible": 0, "without_rls": 2, "denied": null,
                    "policies": [{"name": "own notes", "applies": true}, {"name": "x", "applies": false}]},
        });
        assert_eq!(
            render(&e),
            "16:29:24.506 GET /rest/v1/notes → 200 3.5 ms  authenticated (u1)  [branch w1]\n    \
             rls on public.notes: 0 of 2 rows visible (policies: own notes)\n    sql: SELECT 1\n    params: [\"5\"]"
        );
    }
}
