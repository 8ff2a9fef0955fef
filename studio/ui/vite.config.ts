import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { fileURLToPath, URL } from 'node:url'

// Built by studio/build.rs into the binary; `npm run dev` proxies the API to a running supagate.
export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': process.env.STUDIO_URL ?? 'http://127.0.0.1:54323' },
  },
  build: { target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 600 },
})
