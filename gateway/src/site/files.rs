//! A file of the site as the client best takes it: the build's precompressed copy beside it
//! (`<file>.br`, `<file>.gz`, brotli and gzip at their highest levels) chosen by Accept-Encoding,
//! else the file itself. What is compressed already (fonts, images) is never compressed again.

use actix_files::NamedFile;
use actix_web::http::header::{
    self, AcceptEncoding, ContentEncoding, Encoding, Header, HeaderValue,
};
use actix_web::{HttpRequest, HttpResponse};
use std::path::{Path, PathBuf};

/// Media types whose bytes are compressed already: gzip would only cost time.
fn already_compressed(mime: &mime_guess::Mime) -> bool {
    matches!(mime.type_().as_str(), "image" | "video" | "audio" | "font") && mime.subtype() != "svg"
        || matches!(
            mime.subtype().as_str(),
            "zip" | "gzip" | "x-brotli" | "wasm" | "pdf"
        )
}

fn sibling(file: &Path, ext: &str) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

/// The precompressed copy of `file` the request accepts, best first (brotli, then gzip).
fn precompressed(req: &HttpRequest, file: &Path) -> Option<(PathBuf, ContentEncoding)> {
    // No Accept-Encoding: the plain file (RFC 9110 allows any coding; nobody expects one).
    req.headers().get(header::ACCEPT_ENCODING)?;
    let accepted = AcceptEncoding::parse(req).ok()?;
    let available: Vec<(Encoding, PathBuf, ContentEncoding)> = [
        (Encoding::brotli(), "br", ContentEncoding::Brotli),
        (Encoding::gzip(), "gz", ContentEncoding::Gzip),
    ]
    .into_iter()
    .map(|(e, ext, c)| (e, sibling(file, ext), c))
    .filter(|(_, p, _)| p.is_file())
    .collect();
    let chosen = accepted.negotiate(available.iter().map(|(e, _, _)| e))?;
    available
        .into_iter()
        .find(|(e, _, _)| *e == chosen)
        .map(|(_, p, c)| (p, c))
}

/// The response for an existing file of the site (ranges, ETag and Last-Modified included).
pub fn respond(req: &HttpRequest, file: &Path) -> Option<HttpResponse> {
    let mime = mime_guess::from_path(file).first_or_octet_stream();
    let has_copies = sibling(file, "br").is_file() || sibling(file, "gz").is_file();
    let mut res = match precompressed(req, file) {
        Some((copy, coding)) => NamedFile::open(copy)
            .ok()?
            .set_content_type(mime)
            .set_content_encoding(coding)
            .disable_content_disposition()
            .into_response(req),
        None => {
            let mut plain = NamedFile::open(file).ok()?.into_response(req);
            if already_compressed(&mime) {
                // Tells the compression middleware to leave these bytes alone.
                plain.headers_mut().insert(
                    header::CONTENT_ENCODING,
                    HeaderValue::from_static("identity"),
                );
            }
            plain
        }
    };
    if has_copies {
        res.headers_mut()
            .insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    }
    Some(res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn site() -> tempdir::Dir {
        tempdir::Dir::new()
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let p =
                    std::env::temp_dir().join(format!("supagate-site-{}", uuid::Uuid::new_v4()));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    fn encoding(res: &HttpResponse) -> Option<&str> {
        res.headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| v.to_str().unwrap())
    }

    #[actix_web::test]
    async fn picks_the_copy_the_client_accepts() {
        let dir = site();
        let js = dir.0.join("app.js");
        std::fs::write(&js, "console.log(1)").unwrap();
        std::fs::write(sibling(&js, "br"), "br-bytes").unwrap();
        std::fs::write(sibling(&js, "gz"), "gz-bytes").unwrap();
        let get = |ae: Option<&str>| {
            let mut r = TestRequest::get().uri("/app.js");
            if let Some(ae) = ae {
                r = r.insert_header((header::ACCEPT_ENCODING, ae));
            }
            respond(&r.to_http_request(), &js).unwrap()
        };
        let br = get(Some("gzip, deflate, br"));
        assert_eq!(encoding(&br), Some("br"));
        assert_eq!(
            br.headers().get(header::CONTENT_TYPE).unwrap(),
            "text/javascript"
        );
        assert_eq!(br.headers().get(header::VARY).unwrap(), "Accept-Encoding");
        assert_eq!(encoding(&get(Some("gzip"))), Some("gzip"));
        assert_eq!(encoding(&get(Some("br;q=0, gzip"))), Some("gzip"));
        assert_eq!(encoding(&get(None)), None);
        assert_eq!(encoding(&get(Some("identity"))), None);
    }

    #[actix_web::test]
    async fn fonts_and_images_are_never_compressed_again() {
        let dir = site();
        let font = dir.0.join("f.woff2");
        std::fs::write(&font, "woff2").unwrap();
        let req = TestRequest::get()
            .insert_header((header::ACCEPT_ENCODING, "gzip, br"))
            .to_http_request();
        assert_eq!(encoding(&respond(&req, &font).unwrap()), Some("identity"));
        let svg = dir.0.join("a.svg");
        std::fs::write(&svg, "<svg/>").unwrap();
        assert_eq!(encoding(&respond(&req, &svg).unwrap()), None);
    }
}
