//! Studio's built UI, each file gzipped in the binary: sent as it is to browsers that take
//! gzip (all do), unpacked for the rest. Nothing is unpacked or loaded until asked for.

pub struct Asset {
    /// Relative to the UI's root: `index.html`, `assets/index-1a2b.js`.
    pub path: &'static str,
    pub content_type: &'static str,
    /// Bytes unpacked.
    pub size: usize,
    pub gzip: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// The file at `path` (no leading slash).
pub fn find(path: &str) -> Option<&'static Asset> {
    FILES.iter().find(|a| a.path == path)
}

impl Asset {
    pub fn unpacked(&self) -> Vec<u8> {
        use std::io::Read;
        let mut out = Vec::with_capacity(self.size);
        flate2::read::GzDecoder::new(self.gzip)
            .read_to_end(&mut out)
            .expect("gzipped by build.rs");
        out
    }

    /// Hashed names (Vite's `assets/`) never change: cached for a year.
    pub fn immutable(&self) -> bool {
        self.path.starts_with("assets/")
    }
}

/// Bytes the UI adds to the binary.
pub fn packed_bytes() -> usize {
    FILES.iter().map(|a| a.gzip.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ui_is_packed_and_unpacks() {
        let index = find("index.html").expect("the UI's page");
        let html = String::from_utf8(index.unpacked()).unwrap();
        assert!(html.contains("<div id=\"root\">"), "{html}");
        assert_eq!(html.len(), index.size);
        assert!(
            FILES
                .iter()
                .any(|a| a.immutable() && a.path.ends_with(".js"))
        );
        assert!(packed_bytes() < FILES.iter().map(|a| a.size).sum());
    }
}
