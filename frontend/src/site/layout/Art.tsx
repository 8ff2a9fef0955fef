/** Original illustrations used where a photo would be. */
export function HeroBouquet({ className }: { className?: string }) {
  const blooms: [number, number, number, string][] = [
    [210, 120, 44, '#cf6a84'],
    [140, 160, 38, '#f5ccd5'],
    [280, 165, 40, '#e08ca0'],
    [180, 215, 36, '#fff4f6'],
    [250, 225, 34, '#f3c66b'],
    [115, 225, 30, '#b794d6'],
    [310, 235, 30, '#f5ccd5'],
    [205, 180, 30, '#e4603f'],
  ]
  return (
    <svg
      viewBox="-20 0 460 440"
      className={className}
      role="img"
      aria-label="Illustration of a hand-tied bouquet"
    >
      <circle cx="210" cy="200" r="190" fill="#fbe8ec" />
      <circle cx="340" cy="70" r="36" fill="#ffffff" opacity="0.6" />
      {[-60, -35, -10, 15, 40, 65].map((a, i) => (
        <ellipse
          key={a}
          cx="210"
          cy="150"
          rx="16"
          ry="60"
          fill={i % 2 ? '#8fa88b' : '#6f8f6b'}
          transform={`rotate(${a} 210 330)`}
        />
      ))}
      {[0, 1, 2, 3, 4, 5, 6].map((i) => (
        <path
          key={i}
          d={`M210 400 Q${200 + i * 3} 300 ${120 + i * 30} 200`}
          stroke="#5a7657"
          strokeWidth="5"
          fill="none"
        />
      ))}
      {blooms.map(([x, y, r, c], i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed drawing that never reorders
        <g key={i}>
          {[0, 60, 120, 180, 240, 300].map((a) => (
            <ellipse
              key={a}
              cx={x}
              cy={y - r * 0.6}
              rx={r * 0.42}
              ry={r * 0.62}
              fill={c}
              transform={`rotate(${a + i * 11} ${x} ${y})`}
            />
          ))}
          <circle cx={x} cy={y} r={r * 0.3} fill={i === 4 ? '#7a4a2a' : '#f3c66b'} />
        </g>
      ))}
      <path d="M130 265 L210 420 L290 265 Q210 300 130 265z" fill="#f3d7b6" />
      <path d="M165 280 L210 420 L190 282z" fill="#e8b4c0" opacity="0.6" />
      <path
        d="M180 345 q30 16 60 0"
        stroke="#b04f6a"
        strokeWidth="8"
        fill="none"
        strokeLinecap="round"
      />
    </svg>
  )
}

export function VaseCare({ className }: { className?: string }) {
  return (
    <svg
      viewBox="0 0 360 300"
      className={className}
      role="img"
      aria-label="Illustration of fresh flowers in a vase of clean water"
    >
      <rect width="360" height="300" rx="16" fill="#e8efe6" />
      <path d="M140 150 h80 l-8 120 h-64z" fill="#cfe3ea" opacity="0.85" />
      <path d="M146 190 h68 l-5 80 h-58z" fill="#9cc7d6" opacity="0.7" />
      {[150, 165, 180, 195, 210].map((x, i) => (
        <path
          key={x}
          d={`M${x} 260 Q${x + (i - 2) * 6} 170 ${120 + i * 30} ${80 + (i % 2) * 20}`}
          stroke="#5a7657"
          strokeWidth="4"
          fill="none"
        />
      ))}
      {[
        [120, 80, '#e08ca0'],
        [150, 100, '#f3c66b'],
        [180, 80, '#cf6a84'],
        [210, 100, '#fff4f6'],
        [240, 80, '#b794d6'],
      ].map(([x, y, c], i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed drawing that never reorders
        <g key={i}>
          {[0, 72, 144, 216, 288].map((a) => (
            <ellipse
              key={a}
              cx={x as number}
              cy={(y as number) - 12}
              rx="9"
              ry="14"
              fill={c as string}
              transform={`rotate(${a} ${x} ${y})`}
            />
          ))}
          <circle cx={x as number} cy={y as number} r="5" fill="#f3c66b" />
        </g>
      ))}
      <text
        x="262"
        y="200"
        fontSize="15"
        fill="#465e44"
        fontFamily="Nunito Sans Variable, sans-serif"
      >
        2–3 days
      </text>
      <path
        d="M250 205 q-20 10 -30 -2"
        stroke="#465e44"
        strokeWidth="2"
        fill="none"
        markerEnd="url(#arrow)"
      />
    </svg>
  )
}

export function ShopFront({ className }: { className?: string }) {
  return (
    <svg
      viewBox="0 0 400 300"
      className={className}
      role="img"
      aria-label="Illustration of the shop front with flower buckets"
    >
      <rect width="400" height="300" rx="16" fill="#fbf7f2" />
      <rect
        x="40"
        y="70"
        width="320"
        height="200"
        fill="#f4ece1"
        stroke="#d8c7b3"
        strokeWidth="3"
      />
      <path d="M30 70 h340 l-20 -40 h-300z" fill="#b04f6a" />
      {[0, 1, 2, 3, 4, 5, 6].map((i) => (
        <path
          key={i}
          d={`M${50 + i * 44} 30 l-6 40 h44 l-6 -40z`}
          fill={i % 2 ? '#fbe8ec' : '#b04f6a'}
          opacity={i % 2 ? 1 : 0.9}
        />
      ))}
      <rect
        x="70"
        y="110"
        width="110"
        height="90"
        fill="#cfe3ea"
        stroke="#8fa88b"
        strokeWidth="3"
      />
      <rect x="220" y="110" width="110" height="160" fill="#8f3d55" />
      <circle cx="310" cy="195" r="5" fill="#f3c66b" />
      <text
        x="200"
        y="95"
        textAnchor="middle"
        fontFamily="Cormorant Variable, Georgia, serif"
        fontSize="22"
        fontWeight="700"
        fill="#2f2129"
      >
        Bluebell &amp; Sage
      </text>
      {[80, 120, 160].map((x, i) => (
        <g key={x}>
          <rect x={x - 14} y="235" width="28" height="35" rx="4" fill="#8fa88b" />
          {[0, 1, 2].map((j) => (
            <circle
              key={j}
              cx={x - 8 + j * 8}
              cy={228 - (j % 2) * 6}
              r="8"
              fill={['#e08ca0', '#f3c66b', '#cf6a84', '#b794d6'][(i + j) % 4]}
            />
          ))}
        </g>
      ))}
    </svg>
  )
}
