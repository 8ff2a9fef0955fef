//! Image transformations as Supabase's `/render/image` offers them (width, height, resize
//! cover/contain/fill, quality, format origin/webp), done with the `image` crate instead of
//! imgproxy. Every input is bounded before it is decoded: the source's size in bytes, its
//! resolution read from the header alone (a decompression bomb is refused before any pixel is
//! allocated), the decoder's allocations, and the output dimensions (clamped as storage-api
//! clamps them).

use crate::StorageError;
use image::{DynamicImage, ImageFormat, ImageReader, imageops::FilterType};
use sha2::Digest;
use std::collections::HashMap;
use std::io::Cursor;

/// The bounds of one rendering (the Supabase CLI's imgproxy settings by default).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest source file (imgproxy's `MAX_SRC_FILE_SIZE`, 25 MB).
    pub max_source_bytes: u64,
    /// Largest source resolution in pixels (`MAX_SRC_RESOLUTION`, 50 megapixels).
    pub max_source_pixels: u64,
    /// Requested width and height are clamped to 1..=this (storage-api's 2000).
    pub max_dimension: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_source_bytes: 25_000_000,
            max_source_pixels: 50_000_000,
            max_dimension: 2000,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Resize {
    #[default]
    Cover,
    Contain,
    Fill,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Unset: WebP when the client accepts it (imgproxy's WebP detection), else the source's.
    #[default]
    Auto,
    Origin,
    Webp,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Transform {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub resize: Resize,
    pub quality: Option<u8>,
    pub format: Format,
}

fn invalid(name: &str, message: &str) -> StorageError {
    StorageError::InvalidParameter {
        name: name.into(),
        message: Some(message.into()),
    }
}

impl Transform {
    /// From a render URL's query, validated as storage-api's schema validates it.
    pub fn from_query(q: &HashMap<String, String>) -> Result<Self, StorageError> {
        let size = |k: &str| -> Result<Option<u32>, StorageError> {
            match q.get(k).filter(|v| !v.is_empty()) {
                None => Ok(None),
                Some(v) => v
                    .parse::<u32>()
                    .map(|n| (n > 0).then_some(n))
                    .map_err(|_| invalid(k, &format!("querystring/{k} must be integer >= 0"))),
            }
        };
        let resize = match q.get("resize").map(String::as_str) {
            None | Some("") | Some("cover") => Resize::Cover,
            Some("contain") => Resize::Contain,
            Some("fill") => Resize::Fill,
            Some(_) => {
                return Err(invalid(
                    "resize",
                    "querystring/resize must be equal to one of the allowed values",
                ));
            }
        };
        let format = match q.get("format").map(String::as_str) {
            None | Some("") => Format::Auto,
            Some("origin") => Format::Origin,
            // AVIF cannot be encoded here: it is answered with WebP, the other modern format.
            Some("webp") | Some("avif") => Format::Webp,
            Some(_) => {
                return Err(invalid(
                    "format",
                    "querystring/format must be equal to one of the allowed values",
                ));
            }
        };
        let quality = match q.get("quality").filter(|v| !v.is_empty()) {
            None => None,
            Some(v) => match v.parse::<u8>() {
                Ok(n) if (20..=100).contains(&n) => Some(n),
                _ => {
                    return Err(invalid(
                        "quality",
                        "querystring/quality must be an integer from 20 to 100",
                    ));
                }
            },
        };
        Ok(Transform {
            width: size("width")?,
            height: size("height")?,
            resize,
            quality,
            format,
        })
    }

    /// From the `transformations` claim of a signed render URL (`height:100,width:100,...`);
    /// unknown or malformed parts are ignored, as storage-api ignores them.
    pub fn from_token(s: &str) -> Self {
        let mut t = Transform::default();
        for part in s.split(',') {
            let mut kv = part.splitn(2, ':');
            let (Some(k), Some(v)) = (kv.next(), kv.next()) else {
                continue;
            };
            match k {
                "width" => t.width = v.parse().ok().filter(|n| *n > 0),
                "height" => t.height = v.parse().ok().filter(|n| *n > 0),
                "quality" => t.quality = v.parse().ok().filter(|n| (20..=100).contains(n)),
                "resize" => {
                    t.resize = match v {
                        "contain" => Resize::Contain,
                        "fill" => Resize::Fill,
                        _ => Resize::Cover,
                    }
                }
                "format" => {
                    t.format = match v {
                        "webp" | "avif" => Format::Webp,
                        "origin" => Format::Origin,
                        _ => Format::Auto,
                    }
                }
                _ => {}
            }
        }
        t
    }

    /// The claim a signed render URL carries, as storage-api writes it.
    pub fn to_token(&self, limits: &Limits) -> String {
        self.segments(limits, ["cover", "contain", "fill"], "resize")
    }

    /// The transformations as imgproxy options, which storage-api reports in the
    /// `X-Transformations` header (`height:200,width:200,resizing_type:fill,quality:60`).
    pub fn imgproxy_options(&self, limits: &Limits) -> String {
        self.segments(limits, ["fill", "fit", "force"], "resizing_type")
    }

    /// `height`, `width`, the resize mode (named for cover, contain, fill), `quality`, `format`.
    fn segments(&self, limits: &Limits, resize_names: [&str; 3], resize_key: &str) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.height {
            parts.push(format!("height:{}", h.clamp(1, limits.max_dimension)));
        }
        if let Some(w) = self.width {
            parts.push(format!("width:{}", w.clamp(1, limits.max_dimension)));
        }
        if self.width.is_some() || self.height.is_some() {
            let name = resize_names[self.resize as usize];
            parts.push(format!("{resize_key}:{name}"));
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        if self.format == Format::Webp {
            parts.push("format:webp".into());
        }
        parts.join(",")
    }

    /// Whether the output is WebP for a client with this `Accept` header.
    pub fn wants_webp(&self, accept: Option<&str>) -> bool {
        match self.format {
            Format::Webp => true,
            Format::Origin => false,
            Format::Auto => accept.is_some_and(|a| a.contains("image/webp")),
        }
    }

    /// Where a rendering of this object version is cached: renderings of a version live and
    /// die with it (see [`crate::keys::render_prefix`]).
    pub fn cache_path(
        &self,
        version: &str,
        webp: bool,
        limits: &Limits,
    ) -> object_store::path::Path {
        let digest = sha2::Sha256::digest(format!("{}|webp={webp}", self.to_token(limits)));
        crate::keys::render_prefix(version).child(hex::encode(&digest[..16]))
    }
}

/// A rendered image.
#[derive(Debug)]
pub struct Rendered {
    pub bytes: Vec<u8>,
    pub mime: &'static str,
}

fn unsupported() -> StorageError {
    StorageError::ImageProcessing(
        400,
        "The source image is invalid or unsupported for rendering".into(),
    )
}

/// What the header says about a source, before any pixel is decoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
    /// Bytes the decoded pixels take.
    pub decoded_bytes: u64,
}

/// Reads `source`'s header and checks it against `limits`: a decompression bomb is refused
/// here, before anything is allocated for its pixels.
pub fn probe(source: &[u8], limits: &Limits) -> Result<Header, StorageError> {
    if source.len() as u64 > limits.max_source_bytes {
        return Err(StorageError::ImageProcessing(
            400,
            "The source image file is too large to process".into(),
        ));
    }
    let reader = ImageReader::new(Cursor::new(source))
        .with_guessed_format()
        .map_err(|_| unsupported())?;
    let format = reader.format().ok_or_else(unsupported)?;
    let decoder = reader.into_decoder().map_err(|_| unsupported())?;
    let (width, height) = image::ImageDecoder::dimensions(&decoder);
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_source_pixels {
        return Err(StorageError::ImageProcessing(
            400,
            "The source image resolution is too large to process".into(),
        ));
    }
    let per_pixel = u64::from(image::ImageDecoder::color_type(&decoder).bytes_per_pixel());
    Ok(Header {
        format,
        width,
        height,
        decoded_bytes: pixels * per_pixel,
    })
}

/// About the most memory rendering a source with this header as `t` asks takes at once: the
/// decoded pixels, a box-shrunk copy of at most four times the output's area (4 bytes a pixel),
/// Lanczos' float copy of that (16 bytes a pixel) and the output.
pub fn peak_bytes(h: &Header, t: &Transform, limits: &Limits) -> u64 {
    let pixels = u64::from(h.width) * u64::from(h.height);
    let out = target_size(h.width, h.height, t, limits)
        .map_or(pixels, |(w, h)| u64::from(w) * u64::from(h));
    h.decoded_bytes + 20 * pixels.min(4 * out) + 4 * out
}

/// Renders `source` (CPU-bound: run it off the async runtime).
pub fn render(
    source: &[u8],
    t: &Transform,
    webp: bool,
    limits: &Limits,
) -> Result<Rendered, StorageError> {
    let Header {
        format: source_format,
        width: w,
        height: h,
        ..
    } = probe(source, limits)?;
    let mut reader = ImageReader::with_format(Cursor::new(source), source_format);
    let mut decoder_limits = image::Limits::default();
    decoder_limits.max_image_width = Some(w);
    decoder_limits.max_image_height = Some(h);
    // RGBA at 16 bits per channel for the largest image allowed, and nothing more.
    decoder_limits.max_alloc = Some(limits.max_source_pixels * 8);
    reader.limits(decoder_limits);
    let img = reader.decode().map_err(|_| unsupported())?;
    let img = resize(img, t, limits);

    // WebP (the image crate encodes it lossless, from 8-bit RGB(A)) or the source's own format;
    // anything else comes out as PNG.
    let (format, mime) = match (webp, source_format) {
        (true, _) | (false, ImageFormat::WebP) => (ImageFormat::WebP, "image/webp"),
        (false, ImageFormat::Jpeg) => (ImageFormat::Jpeg, "image/jpeg"),
        (false, ImageFormat::Gif) => (ImageFormat::Gif, "image/gif"),
        _ => (ImageFormat::Png, "image/png"),
    };
    // `into_*` keeps the pixels when they already have the wanted layout (no second copy).
    let img = match format {
        ImageFormat::Jpeg => DynamicImage::ImageRgb8(img.into_rgb8()),
        ImageFormat::Png => img,
        _ if img.color().has_alpha() || format == ImageFormat::Gif => {
            DynamicImage::ImageRgba8(img.into_rgba8())
        }
        _ => DynamicImage::ImageRgb8(img.into_rgb8()),
    };
    let mut out = Cursor::new(Vec::new());
    let written = if format == ImageFormat::Jpeg {
        let q = t.quality.unwrap_or(80);
        img.write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(
            &mut out, q,
        ))
    } else {
        img.write_to(&mut out, format)
    };
    written.map_err(|e| StorageError::ImageProcessing(500, format!("Internal error: {e}")))?;
    Ok(Rendered {
        bytes: out.into_inner(),
        mime,
    })
}

/// The target size: a missing side follows the aspect ratio; the image is never enlarged
/// (imgproxy's default), so a box larger than the source shrinks to fit inside it.
fn resize(img: DynamicImage, t: &Transform, limits: &Limits) -> DynamicImage {
    let (sw, sh) = (img.width().max(1), img.height().max(1));
    let Some((w, h)) = target_size(sw, sh, t, limits) else {
        return img;
    };
    // Lanczos over a large source keeps a float copy of it (16 bytes a pixel): a source
    // more than twice the target is first shrunk by box sampling, which needs only its output.
    let img = if u64::from(sw) * u64::from(sh) > 4 * u64::from(w) * u64::from(h) {
        let k = (f64::from(sw) / f64::from(w))
            .min(f64::from(sh) / f64::from(h))
            .max(2.0)
            / 2.0;
        let (tw, th) = (
            ((f64::from(sw) / k) as u32).max(w),
            ((f64::from(sh) / k) as u32).max(h),
        );
        img.thumbnail_exact(tw, th)
    } else {
        img
    };
    match t.resize {
        Resize::Cover => img.resize_to_fill(w, h, FilterType::Lanczos3),
        Resize::Contain => img.resize(w, h, FilterType::Lanczos3),
        Resize::Fill => img.resize_exact(w, h, FilterType::Lanczos3),
    }
}

/// The output size for a `sw`×`sh` source, None when it keeps its size.
fn target_size(sw: u32, sh: u32, t: &Transform, limits: &Limits) -> Option<(u32, u32)> {
    let (sw, sh) = (sw.max(1), sh.max(1));
    let clamp = |v: u32| v.clamp(1, limits.max_dimension);
    let (w, h) = match (t.width.map(clamp), t.height.map(clamp)) {
        (None, None) => return None,
        (Some(w), None) => (
            w,
            ((u64::from(w) * u64::from(sh)) / u64::from(sw)).max(1) as u32,
        ),
        (None, Some(h)) => (
            ((u64::from(h) * u64::from(sw)) / u64::from(sh)).max(1) as u32,
            h,
        ),
        (Some(w), Some(h)) => (w, h),
    };
    let shrink = (f64::from(sw) / f64::from(w))
        .min(f64::from(sh) / f64::from(h))
        .min(1.0);
    let (w, h) = if t.resize == Resize::Fill {
        (w, h)
    } else {
        (
            ((f64::from(w) * shrink).round() as u32).max(1),
            ((f64::from(h) * shrink).round() as u32).max(1),
        )
    };
    Some((w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
        });
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(img)
            .write_to(&mut out, ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    fn dims(bytes: &[u8]) -> (u32, u32) {
        image::load_from_memory(bytes)
            .unwrap()
            .to_rgb8()
            .dimensions()
    }

    fn q(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn resizes_as_imgproxy_does() {
        let src = png(400, 200);
        let l = Limits::default();
        let t = |p: &[(&str, &str)]| Transform::from_query(&q(p)).unwrap();
        let out = |tr: &Transform| dims(&render(&src, tr, false, &l).unwrap().bytes);
        assert_eq!(out(&t(&[("width", "100")])), (100, 50));
        assert_eq!(out(&t(&[("height", "50")])), (100, 50));
        assert_eq!(out(&t(&[("width", "100"), ("height", "100")])), (100, 100));
        assert_eq!(
            out(&t(&[
                ("width", "100"),
                ("height", "100"),
                ("resize", "contain")
            ])),
            (100, 50)
        );
        assert_eq!(
            out(&t(&[
                ("width", "100"),
                ("height", "100"),
                ("resize", "fill")
            ])),
            (100, 100)
        );
        // Never enlarged: a box twice the source keeps its aspect inside the source.
        assert_eq!(out(&t(&[("width", "800"), ("height", "800")])), (200, 200));
        assert_eq!(out(&t(&[("width", "800")])), (400, 200));
    }

    #[test]
    fn formats() {
        let src = png(64, 64);
        let l = Limits::default();
        let t = Transform::from_query(&q(&[("width", "32")])).unwrap();
        let r = render(&src, &t, false, &l).unwrap();
        assert_eq!(r.mime, "image/png");
        assert!(t.wants_webp(Some("image/avif,image/webp,*/*")));
        assert!(!t.wants_webp(Some("*/*")));
        let r = render(&src, &t, true, &l).unwrap();
        assert_eq!((r.mime, &r.bytes[8..12]), ("image/webp", &b"WEBP"[..]));
        let origin = Transform::from_query(&q(&[("format", "origin")])).unwrap();
        assert!(!origin.wants_webp(Some("image/webp")));
        let jpeg = {
            let mut out = Cursor::new(Vec::new());
            DynamicImage::ImageRgb8(image::RgbImage::new(50, 50))
                .write_to(&mut out, ImageFormat::Jpeg)
                .unwrap();
            out.into_inner()
        };
        let hi = Transform::from_query(&q(&[("quality", "100")])).unwrap();
        assert_eq!(render(&jpeg, &hi, false, &l).unwrap().mime, "image/jpeg");
    }

    #[test]
    fn bad_parameters_and_sources_are_refused() {
        for bad in [
            &[("width", "-1")][..],
            &[("width", "abc")],
            &[("resize", "stretch")],
            &[("format", "bmp")],
            &[("quality", "10")],
            &[("quality", "101")],
        ] {
            assert!(Transform::from_query(&q(bad)).is_err(), "{bad:?}");
        }
        let l = Limits::default();
        let t = Transform::default();
        let e = render(b"not an image at all", &t, false, &l).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The source image is invalid or unsupported for rendering"
        );
        let small = Limits {
            max_source_bytes: 10,
            ..l
        };
        let e = render(&png(8, 8), &t, false, &small).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The source image file is too large to process"
        );
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for b in data {
            c ^= u32::from(*b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn a_decompression_bomb_is_refused_from_its_header() {
        // A 100,000 × 100,000 PNG header (10 gigapixels) with almost no data behind it.
        let mut bomb = png(1, 1);
        bomb[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        bomb[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let crc = crc32(&bomb[12..29]);
        bomb[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = render(&bomb, &Transform::default(), false, &Limits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The source image resolution is too large to process"
        );
    }

    #[test]
    fn tokens_round_trip_and_clamp() {
        let l = Limits::default();
        let t = Transform::from_query(&q(&[
            ("width", "5000"),
            ("height", "100"),
            ("quality", "70"),
        ]))
        .unwrap();
        let token = t.to_token(&l);
        assert_eq!(token, "height:100,width:2000,resize:cover,quality:70");
        assert_eq!(
            t.imgproxy_options(&l),
            "height:100,width:2000,resizing_type:fill,quality:70"
        );
        let back = Transform::from_token(&token);
        assert_eq!(
            (back.width, back.height, back.quality),
            (Some(2000), Some(100), Some(70))
        );
        assert_ne!(t.cache_path("v1", true, &l), t.cache_path("v1", false, &l));
        assert!(
            t.cache_path("v1", true, &l)
                .as_ref()
                .starts_with("renders/v1/")
        );
    }
}
