//! Studio's built UI, each file gzipped in the binary (by build.rs, embedded by rust-embed):
//! sent as it is to browsers that take gzip (all do), unpacked for the rest. Nothing is
//! unpacked or loaded until asked for.

use std::borrow::Cow;

include!(concat!(env!("OUT_DIR"), "/ui.rs"));

pub struct Asset {
    /// Relative to the UI's root: `index.html`, `assets/index-1a2b.js`.
    pub path: String,
    pub content_type: &'static str,
    pub gzip: Cow<'static, [u8]>,
}

/// The file at `path` (no leading slash).
pub fn find(path: &str) -> Option<Asset> {
    let file = Ui::get(path)?;
    Some(Asset {
        path: path.to_string(),
        content_type: content_type(path),
        gzip: file.data,
    })
}

fn content_type(file: &str) -> &'static str {
    match file.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

impl Asset {
    /// Bytes unpacked: gzip's trailer keeps the size (modulo 2³², far above any file of the UI).
    pub fn size(&self) -> usize {
        let n = self.gzip.len();
        self.gzip
            .get(n.saturating_sub(4)..)
            .and_then(|t| <[u8; 4]>::try_from(t).ok())
            .map_or(0, |t| u32::from_le_bytes(t) as usize)
    }

    pub fn unpacked(&self) -> Vec<u8> {
        use std::io::Read;
        let mut out = Vec::with_capacity(self.size());
        flate2::read::GzDecoder::new(&*self.gzip)
            .read_to_end(&mut out)
            .expect("gzipped by build.rs");
        out
    }

    /// Hashed names (Vite's `assets/`) never change: cached for a year.
    pub fn immutable(&self) -> bool {
        self.path.starts_with("assets/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ui_is_packed_and_unpacks() {
        let index = find("index.html").expect("the UI's page");
        assert_eq!(index.content_type, "text/html; charset=utf-8");
        let html = String::from_utf8(index.unpacked()).unwrap();
        assert!(html.contains("<div id=\"root\">"), "{html}");
        assert_eq!(html.len(), index.size());
        let files: Vec<Asset> = Ui::iter().filter_map(|p| find(&p)).collect();
        assert!(files.iter().any(|a| a.immutable()
            && a.path.ends_with(".js")
            && a.content_type == "text/javascript; charset=utf-8"));
        assert!(files.iter().all(|a| a.unpacked().len() == a.size()));
        // Gzip pays: the UI packed is smaller than unpacked.
        let packed: usize = files.iter().map(|a| a.gzip.len()).sum();
        assert!(packed < files.iter().map(Asset::size).sum());
        assert!(find("no/such/file.js").is_none());
    }
}
