//! Image renderings stay within their budgets: variants per object and bytes on disk.

use crate::support;
use support::Api;

/// A PNG of noise (it does not compress): renderings of it take real room.
fn noisy_png(side: u32) -> Vec<u8> {
    let mut seed = 0x2545_f491_u32;
    let img = image::RgbImage::from_fn(side, side, |_, _| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let [a, b, c, _] = seed.to_le_bytes();
        image::Rgb([a, b, c])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The renderings on disk: (count, bytes) under each version's folder, all together.
fn renders_on_disk(gw: &support::Gateway) -> (Vec<usize>, u64) {
    let root = gw.data_dir.join("storage").join("renders");
    let mut per_version = Vec::new();
    let mut total = 0;
    for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        total += files
            .iter()
            .map(|f| f.metadata().unwrap().len())
            .sum::<u64>();
        per_version.push(files.len());
    }
    (per_version, total)
}

#[tokio::test]
async fn the_render_cache_keeps_to_its_variants_and_bytes() {
    let dir = support::scratch_project(&[]);
    let gw = support::start_project(&dir, &["--render-variants", "4", "--render-cache-mb", "1"]);
    gw.create_bucket("pics", true).await;
    let service = Api::service(&gw);
    for name in ["a.png", "b.png"] {
        let r = service
            .request(
                "POST",
                &format!("/storage/v1/object/pics/{name}"),
                &[("content-type", "image/png")],
                Some(noisy_png(600)),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    // Forty anonymous requests for forty sizes of one image, then a few of the other.
    let anon = Api::anon(&gw);
    for w in 0..40 {
        let r = anon
            .get(&format!(
                "/storage/v1/render/image/public/pics/a.png?width={}",
                200 + w * 5
            ))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let (per_version, _) = renders_on_disk(&gw);
        assert!(
            per_version.iter().all(|n| *n <= 4),
            "variants: {per_version:?}"
        );
    }
    for w in [300, 400, 500] {
        let r = anon
            .get(&format!(
                "/storage/v1/render/image/public/pics/b.png?width={w}"
            ))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let (per_version, total) = renders_on_disk(&gw);
    assert!(
        total <= 1 << 20,
        "{total} bytes of renderings kept, {per_version:?}"
    );
    assert!(total > 0, "nothing cached");
    let rows = gw
        .sql("SELECT count(*), sum(bytes) FROM storage.supagate_renders")
        .await;
    assert_eq!(
        rows[0][0].as_deref(),
        Some(per_version.iter().sum::<usize>().to_string().as_str())
    );
    // What was evicted is made again on request.
    let r = anon
        .get("/storage/v1/render/image/public/pics/a.png?width=200")
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("image/png"));
}
