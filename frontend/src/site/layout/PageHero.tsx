import type * as React from 'react'

/**
 * A page's heading band with a soft floral backdrop. On wide screens the large flower and leaves
 * sit in the corners beside the text; on a phone, where the text spans the width, a small bloom
 * above the title takes their place so nothing is drawn behind the words.
 */
export function PageHero({
  title,
  subtitle,
  children,
}: {
  title: string
  subtitle?: React.ReactNode
  children?: React.ReactNode
}) {
  return (
    <section className="relative overflow-hidden bg-gradient-to-br from-rose-100 via-cream-100 to-sage-100">
      <svg
        data-decoration
        className="pointer-events-none absolute -right-10 -top-10 hidden h-64 w-64 opacity-40 lg:block"
        viewBox="0 0 200 200"
        aria-hidden="true"
      >
        {[0, 60, 120, 180, 240, 300].map((a) => (
          <ellipse
            key={a}
            cx="100"
            cy="55"
            rx="26"
            ry="45"
            fill="#e08ca0"
            transform={`rotate(${a} 100 100)`}
          />
        ))}
        <circle cx="100" cy="100" r="18" fill="#f3c66b" />
      </svg>
      <svg
        data-decoration
        className="pointer-events-none absolute -bottom-12 -left-8 hidden h-48 w-48 opacity-40 lg:block"
        viewBox="0 0 200 200"
        aria-hidden="true"
      >
        <path d="M30 190 C60 120 90 80 170 30" stroke="#5a7657" strokeWidth="5" fill="none" />
        {[40, 70, 100, 130].map((t, i) => (
          <ellipse
            key={t}
            cx={40 + t * 0.8}
            cy={170 - t}
            rx="12"
            ry="26"
            fill={i % 2 ? '#8fa88b' : '#6f8f6b'}
            transform={`rotate(${i % 2 ? 50 : -40} ${40 + t * 0.8} ${170 - t})`}
          />
        ))}
      </svg>
      <div className="relative mx-auto max-w-4xl px-4 py-10 text-center sm:py-20">
        <svg className="mx-auto mb-3 size-10 lg:hidden" viewBox="0 0 40 40" aria-hidden="true">
          {[0, 72, 144, 216, 288].map((a) => (
            <ellipse
              key={a}
              cx="20"
              cy="11"
              rx="6"
              ry="9"
              fill="#e08ca0"
              transform={`rotate(${a} 20 20)`}
            />
          ))}
          <circle cx="20" cy="20" r="5" fill="#f3c66b" />
        </svg>
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
