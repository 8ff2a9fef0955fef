import { Link } from 'react-router-dom'
import { site } from '@/config/site'

/** The shop's mark: a bluebell and a sage sprig, with the name set beside it. 125 px wide. */
export function LogoMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 125 56" width="125" height="56" className={className} aria-hidden="true">
      <g transform="translate(6 4)">
        <path
          d="M20 48 C20 30 22 18 30 8"
          stroke="#5a7657"
          strokeWidth="2.5"
          fill="none"
          strokeLinecap="round"
        />
        <ellipse cx="13" cy="30" rx="4.5" ry="9" fill="#8fa88b" transform="rotate(-35 13 30)" />
        <ellipse cx="27" cy="36" rx="4" ry="8" fill="#6f8f6b" transform="rotate(40 27 36)" />
        <path d="M30 8 q-9 2 -10 12 q5 -3 10 -2 q5 -1 10 2 q-1 -10 -10 -12z" fill="#6d7fc4" />
        <path d="M22 22 q-7 1 -8 9 q4 -2 8 -1.5 q4 -0.5 8 1.5 q-1 -8 -8 -9z" fill="#8e9bd6" />
        <circle cx="30" cy="19" r="1.6" fill="#f3c66b" />
      </g>
      <text
        x="48"
        y="26"
        fontFamily="Cormorant Variable, Georgia, serif"
        fontSize="17"
        fontWeight="700"
        fill="#2f2129"
      >
        Bluebell
      </text>
      <text
        x="48"
        y="44"
        fontFamily="Cormorant Variable, Georgia, serif"
        fontSize="14"
        fontStyle="italic"
        fill="#b04f6a"
      >
        &amp; Sage
      </text>
    </svg>
  )
}

export function Logo() {
  return (
    <Link
      to="/"
      className="inline-flex w-[125px] shrink-0 rounded-md"
      aria-label={`${site.name}, home`}
    >
      <LogoMark />
    </Link>
  )
}
