# Builds the site and the gateway, then ships them in a small image.
FROM node:20-bookworm AS site
WORKDIR /src
COPY package.json package-lock.json ./
COPY frontend/package.json frontend/
COPY studio/ui/package.json studio/ui/
COPY tests/package.json tests/
RUN PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund -w frontend -w studio/ui
COPY frontend frontend
RUN npm run build -w frontend
# Studio's UI, built here and packed into the binary by studio/build.rs.
COPY studio/ui studio/ui
RUN npm run build -w studio/ui

# Deno runs the project's Edge Functions (the shop's sitemap and photo uploads): the version the
# lockfile pins for the tests (tests/package.json), from the npm registry.
FROM node:20-bookworm AS deno
WORKDIR /tmp/deno
RUN npm install --no-save --no-audit --no-fund --ignore-scripts deno@2.9.6 && \
    cp node_modules/@deno/linux-*/deno /usr/local/bin/deno && /usr/local/bin/deno --version

FROM rust:1-bookworm AS gateway
WORKDIR /src
COPY . .
COPY --from=site /src/studio/ui/dist /studio-dist
RUN SUPAGATE_STUDIO_DIST=/studio-dist cargo build --release -p supagate

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=gateway /src/target/release/supagate /usr/local/bin/supagate
COPY --from=deno /usr/local/bin/deno /usr/local/bin/deno
COPY --from=site /src/frontend/dist /srv/site
# The shop is a project folder like any Supabase app: config.toml, migrations, seed.
COPY supabase /srv/shop/supabase
ENV SUPAGATE_SITE_DIR=/srv/site SUPAGATE_HOST=0.0.0.0 SUPABASE_WORKDIR=/srv/shop \
    SUPAGATE_DATA_DIR=/var/lib/supagate
VOLUME /var/lib/supagate
EXPOSE 54321
CMD ["supagate", "start"]
