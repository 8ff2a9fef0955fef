import type * as React from 'react'

/** A page's heading band with a soft floral backdrop. */
export function PageHero({ title, subtitle, children }: { title: string; subtitle?: React.ReactNode; children?: React.ReactNode }) {
  return (
    <section className="relative overflow-hidden bg-gradient-to-br from-rose-100 via-cream-100 to-sage-100">
      <svg className="pointer-events-none absolute -right-10 -top-10 h-64 w-64 opacity-40" viewBox="0 0 200 200" aria-hidden="true">
        {[0, 60, 120, 180, 240, 300].map((a) => (
          <ellipse key={a} cx="100" cy="55" rx="26" ry="45" fill="#e08ca0" transform={`rotate(${a} 100 100)`} />
        ))}
        <circle cx="100" cy="100" r="18" fill="#f3c66b" />
      </svg>
      <svg className="pointer-events-none absolute -bottom-12 -left-8 h-48 w-48 opacity-40" viewBox="0 0 200 200" aria-hidden="true">
        <path d="M30 190 C60 120 90 80 170 30" stroke="#5a7657" strokeWidth="5" fill="none" />
        {[40, 70, 100, 130].map((t, i) => (
          <ellipse key={t} cx={40 + t * 0.8} cy={170 - t} rx="12" ry="26" fill={i % 2 ? '#8fa88b' : '#6f8f6b'} transform={`rotate(${i % 2 ? 50 : -40} ${40 + t * 0.8} ${170 - t})`} />
        ))}
      </svg>
      <div className="relative mx-auto max-w-4xl px-4 py-14 text-center sm:py-20">
        <h1 className="font-display text-4xl font-bold text-ink-900 sm:text-5xl">{title}</h1>
        {subtitle && <div className="mx-auto mt-4 max-w-2xl text-lg text-ink-700">{subtitle}</div>}
        {children}
      </div>
    </section>
  )
}

export function Section({ children, className = '', ...rest }: React.HTMLAttributes<HTMLElement>) {
  return (
    <section className={`mx-auto max-w-6xl px-4 py-12 ${className}`} {...rest}>
      {children}
    </section>
  )
}
