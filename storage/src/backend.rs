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

/// The object store of a branch (a copy of the database sharing the project's store): what it
/// writes are new versions of its own, but the bytes of a version are never deleted through
/// it, since the project and its other copies may still name them. What no database names any
/// more is swept when the project next starts.
#[derive(Debug)]
pub struct KeepVersions(pub Arc<dyn ObjectStore>);

impl std::fmt::Display for KeepVersions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeepVersions({})", self.0)
    }
}

fn is_version(p: &object_store::path::Path) -> bool {
    p.as_ref().starts_with("versions/")
}

#[async_trait::async_trait]
impl ObjectStore for KeepVersions {
    async fn put_opts(
        &self,
        location: &object_store::path::Path,
        payload: object_store::PutPayload,
        opts: object_store::PutOptions,
    ) -> object_store::Result<object_store::PutResult> {
        self.0.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &object_store::path::Path,
        opts: object_store::PutMultipartOptions,
    ) -> object_store::Result<Box<dyn object_store::MultipartUpload>> {
        self.0.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &object_store::path::Path,
        options: object_store::GetOptions,
    ) -> object_store::Result<object_store::GetResult> {
        self.0.get_opts(location, options).await
    }

    async fn delete(&self, location: &object_store::path::Path) -> object_store::Result<()> {
        if is_version(location) {
            return Ok(());
        }
        self.0.delete(location).await
    }

    fn list(
        &self,
        prefix: Option<&object_store::path::Path>,
    ) -> futures_util::stream::BoxStream<'static, object_store::Result<object_store::ObjectMeta>>
    {
        self.0.list(prefix)
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&object_store::path::Path>,
    ) -> object_store::Result<object_store::ListResult> {
        self.0.list_with_delimiter(prefix).await
    }

    async fn copy(
        &self,
        from: &object_store::path::Path,
        to: &object_store::path::Path,
    ) -> object_store::Result<()> {
        self.0.copy(from, to).await
    }

    async fn copy_if_not_exists(
        &self,
        from: &object_store::path::Path,
        to: &object_store::path::Path,
    ) -> object_store::Result<()> {
        self.0.copy_if_not_exists(from, to).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::memory::InMemory;
    use object_store::path::Path as Key;

    #[tokio::test]
    async fn a_branch_never_deletes_a_version() {
        let shared: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let branch = KeepVersions(shared.clone());
        for k in ["versions/v1", "renders/v1/w100"] {
            branch.put(&Key::from(k), "x".into()).await.unwrap();
            branch.delete(&Key::from(k)).await.unwrap();
        }
        assert!(shared.head(&Key::from("versions/v1")).await.is_ok());
        assert!(shared.head(&Key::from("renders/v1/w100")).await.is_err());
    }
}
