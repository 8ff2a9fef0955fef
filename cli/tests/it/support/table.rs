//! Fidelity cases as tables: each row is a request and what the upstream service answers to it
//! (status, headers, body — whole, or the parts that matter). A table runs in order on one
//! gateway (its rows may build on each other, as the steps of a scenario) and reports every row
//! that fails, by what the row says, not only the first.

use super::{Api, Gateway, Reply};
use serde_json::Value;

/// Who sends a row's request.
#[derive(Clone)]
pub enum Who {
    Anon,
    Service,
    Token(String),
}

type Check = Box<dyn Fn(&Reply) -> Result<(), String> + Send + Sync>;

/// What a row expects of the body.
enum Body {
    Json(Value),
    Text(String),
    /// Values at JSON pointers (`/code`, `/0/name`).
    At(Vec<(String, Value)>),
}

pub struct Case {
    says: String,
    who: Who,
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    status: Option<u16>,
    response_headers: Vec<(String, Option<String>)>,
    expect: Vec<Body>,
    checks: Vec<Check>,
}

/// A request of the table.
pub fn send(method: &str, path: &str) -> Case {
    Case {
        says: format!("{method} {path}"),
        who: Who::Anon,
        method: method.to_string(),
        path: path.to_string(),
        headers: Vec::new(),
        body: None,
        status: None,
        response_headers: Vec::new(),
        expect: Vec::new(),
        checks: Vec::new(),
    }
}

pub fn get(path: &str) -> Case {
    send("GET", path)
}

/// A request with a JSON body.
pub fn with_json(method: &str, path: &str, body: &str) -> Case {
    send(method, path)
        .header("content-type", "application/json")
        .body_bytes(body.as_bytes().to_vec())
}

pub fn post(path: &str, body: &str) -> Case {
    with_json("POST", path, body)
}

impl Case {
    /// What the row is about (shown when it fails).
    pub fn says(mut self, what: &str) -> Self {
        self.says = format!("{what} ({} {})", self.method, self.path);
        self
    }

    pub fn service(mut self) -> Self {
        self.who = Who::Service;
        self
    }

    pub fn token(mut self, token: &str) -> Self {
        self.who = Who::Token(token.to_string());
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn prefer(self, value: &str) -> Self {
        self.header("prefer", value)
    }

    pub fn accept(self, value: &str) -> Self {
        self.header("accept", value)
    }

    pub fn body_bytes(mut self, body: Vec<u8>) -> Self {
        self.body = Some(body);
        self
    }

    /// A body sent as it is, with this Content-Type.
    pub fn raw(self, content_type: &str, body: &[u8]) -> Self {
        self.header("content-type", content_type)
            .body_bytes(body.to_vec())
    }

    pub fn status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// A response header's value (None: the header must be absent).
    pub fn has(mut self, name: &str, value: Option<&str>) -> Self {
        self.response_headers
            .push((name.to_string(), value.map(str::to_string)));
        self
    }

    /// The whole body, as JSON.
    pub fn json(mut self, v: Value) -> Self {
        self.expect.push(Body::Json(v));
        self
    }

    /// The whole body, as text.
    pub fn text(mut self, t: &str) -> Self {
        self.expect.push(Body::Text(t.to_string()));
        self
    }

    /// The JSON value at a pointer of the body.
    pub fn at(mut self, pointer: &str, v: Value) -> Self {
        match self.expect.last_mut() {
            Some(Body::At(list)) => list.push((pointer.to_string(), v)),
            _ => self.expect.push(Body::At(vec![(pointer.to_string(), v)])),
        }
        self
    }

    /// The body is a JSON array of `n` rows.
    pub fn rows(self, n: usize) -> Self {
        self.check(move |r: &Reply| {
            let got = serde_json::from_str::<Value>(&r.text)
                .ok()
                .and_then(|v| v.as_array().map(Vec::len));
            (got == Some(n))
                .then_some(())
                .ok_or_else(|| format!("{got:?} rows (not {n})"))
        })
    }

    /// Any other condition on the reply.
    pub fn check(
        mut self,
        f: impl Fn(&Reply) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.checks.push(Box::new(f));
        self
    }

    async fn run(&self, gw: &Gateway) -> Result<Reply, String> {
        let api = match &self.who {
            Who::Anon => Api::anon(gw),
            Who::Service => Api::service(gw),
            Who::Token(t) => {
                let mut a = Api::anon(gw);
                a.token = Some(t.clone());
                a
            }
        };
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let r = api
            .request(&self.method, &self.path, &headers, self.body.clone())
            .await;
        let mut wrong = Vec::new();
        if let Some(s) = self.status
            && r.status != s
        {
            wrong.push(format!("status {} (not {s})", r.status));
        }
        for (name, want) in &self.response_headers {
            let got = r.header(name);
            if got != want.as_deref() {
                wrong.push(format!("{name}: {got:?} (not {want:?})"));
            }
        }
        for e in &self.expect {
            match e {
                Body::Text(t) if r.text != *t => {
                    wrong.push(format!("body {:?} (not {t:?})", r.text))
                }
                Body::Text(_) => {}
                Body::Json(v) => match serde_json::from_str::<Value>(&r.text) {
                    Ok(got) if got == *v => {}
                    Ok(got) => wrong.push(format!("body {got} (not {v})")),
                    Err(_) => wrong.push(format!("body {:?} is not JSON (wanted {v})", r.text)),
                },
                Body::At(list) => {
                    let doc: Value = serde_json::from_str(&r.text).unwrap_or(Value::Null);
                    for (ptr, v) in list {
                        let got = doc.pointer(ptr).cloned().unwrap_or(Value::Null);
                        if got != *v {
                            wrong.push(format!("{ptr} = {got} (not {v})"));
                        }
                    }
                }
            }
        }
        for c in &self.checks {
            if let Err(e) = c(&r) {
                wrong.push(e);
            }
        }
        if wrong.is_empty() {
            Ok(r)
        } else {
            Err(format!(
                "{}\n    {}\n    reply: {}",
                self.says,
                wrong.join("\n    "),
                r.text
            ))
        }
    }
}

/// Runs the rows in order on `gw`; panics listing every row that failed.
pub async fn run(gw: &Gateway, rows: Vec<Case>) {
    let mut failed = Vec::new();
    let n = rows.len();
    for row in rows {
        if let Err(e) = row.run(gw).await {
            failed.push(e);
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {n} rows failed:\n  {}",
        failed.len(),
        failed.join("\n  ")
    );
}

/// Runs one row and hands back its reply (for rows whose answer the next ones use).
pub async fn reply(gw: &Gateway, row: Case) -> Reply {
    match row.run(gw).await {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}
