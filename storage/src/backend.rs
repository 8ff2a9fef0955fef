//! The object store holding the bytes.

use object_store::ObjectStore;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub enum BackendConfig {
    /// Files under this directory.
    Local(std::path::PathBuf),
    /// An S3-compatible bucket; credentials, region and endpoint come from the usual AWS_*
    /// variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT, AWS_ALLOW_HTTP).
    S3 { bucket: String },
}

pub fn open(cfg: &BackendConfig) -> Result<Arc<dyn ObjectStore>, object_store::Error> {
    match cfg {
        BackendConfig::Local(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| object_store::Error::Generic {
                store: "LocalFileSystem",
                source: Box::new(e),
            })?;
            Ok(Arc::new(
                object_store::local::LocalFileSystem::new_with_prefix(dir)?,
            ))
        }
        BackendConfig::S3 { bucket } => Ok(Arc::new(
            object_store::aws::AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .build()?,
        )),
    }
}

pub fn local(dir: &Path) -> BackendConfig {
    BackendConfig::Local(dir.to_path_buf())
}
