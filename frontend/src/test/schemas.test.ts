import { describe, expect, it } from 'vitest'
import { authSchema } from '@/features/auth/schema'
import {
  dateProblem,
  makeBouquetSchema,
  shopClock,
  type RequestOptions,
} from '@/features/bouquet/schema'
import { referenceOf, requestRow } from '@/features/bouquet/api'
import { categorySchema, slugify } from '@/features/categories/schema'
import { productDefaults, productSchema } from '@/features/products/schema'
import { validateImageFile } from '@/lib/images'
import { closedWeekdays, defaultWeek, opensOn, weekLines } from '@/features/hours/week'
import { hoursForm, hoursSchema, weekOf } from '@/features/hours/schema'

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) =>
  r.success ? [] : r.error!.issues.map((i) => i.message)

// The shop at 10:00 on June 1st 2026, closed on June 5th.
const shop: RequestOptions = {
  today: '2026-06-01',
  minutes: 600,
  sameDayCutoff: '14:00',
  closed: [{ day: '2026-06-05', note: 'Inventory day' }],
  week: defaultWeek,
}
const bouquetSchema = makeBouquetSchema(shop)
const pickup = { fulfilment: 'pickup', wantedOn: '2026-06-02' }

describe('bouquet form', () => {
  it('gives every message of the spec for an empty form, and the date’s and delivery’s too', () => {
    const r = bouquetSchema.safeParse({
      colors: [],
      customerName: '',
      customerPhone: '',
      customerEmail: '',
    })
    expect(messages(r)).toEqual([
      'Please select a size',
      'Please select at least one color',
      'Please select a design style',
      'Please select an occasion',
      'Name is required',
      'Phone number is required',
      'Valid email is required',
      'Please choose delivery or pick-up',
      'Please choose a date',
    ])
    const delivery = bouquetSchema.safeParse({
      colors: [],
      fulfilment: 'delivery',
      wantedOn: '2026-06-02',
    })
    expect(messages(delivery)).toContain('Recipient name is required')
    expect(messages(delivery)).toContain('Delivery address is required')
  })

  it('accepts a complete request, with the optional fields left out', () => {
    const r = bouquetSchema.safeParse({
      size: 'best',
      colors: ['Pink', 'Greens'],
      designStyle: 'rustic',
      occasion: 'designers-choice',
      customerName: 'Ann',
      customerPhone: '435-555-0100',
      customerEmail: 'ann@example.com',
      ...pickup,
    })
    expect(r.success).toBe(true)
  })

  it('takes dates as the database does: not past, same day before the cut-off, not on closed days, within a year', () => {
    // (day, the shop's minutes since midnight, the problem)
    const cases: [string | undefined, number, string | null][] = [
      [undefined, 600, 'Please choose a date'],
      ['2026-05-31', 600, 'Please choose today or a later date'],
      ['2026-06-01', 600, null],
      [
        '2026-06-01',
        14 * 60,
        'Same-day orders must be placed before 2:00 PM. Please choose a later date or call us.',
      ],
      ['2026-06-02', 23 * 60, null],
      ['2026-06-05', 600, 'We are closed that day (Inventory day). Please choose another date.'],
      ['2026-06-07', 600, 'We are closed on Sundays. Please choose another date.'],
      ['2026-06-06', 600, null],
      ['2027-06-01', 600, null],
      ['2027-06-02', 600, 'Please choose a date within the next year'],
    ]
    for (const [day, minutes, problem] of cases)
      expect(dateProblem(day, { ...shop, minutes })).toBe(problem)
  })

  it('follows the shop’s week: a weekday it closes is refused, whatever the week', () => {
    const mondaysOff = defaultWeek.map((d) =>
      d.weekday === 1 ? { ...d, opens: null, closes: null } : d,
    )
    expect(dateProblem('2026-06-08', { ...shop, week: mondaysOff })).toBe(
      'We are closed on Mondays. Please choose another date.',
    )
    expect(opensOn('2026-06-07', defaultWeek)).toBe(false)
    expect(opensOn('2026-06-08', defaultWeek)).toBe(true)
    expect(closedWeekdays(mondaysOff)).toEqual(['Mondays', 'Sundays'])
  })

  it('reads the shop’s clock in its own time zone', () => {
    // 20:30 UTC on June 1st is 14:30 in Utah (MDT, UTC-6).
    expect(shopClock('America/Denver', new Date('2026-06-01T20:30:00Z'))).toEqual({
      today: '2026-06-01',
      minutes: 14 * 60 + 30,
    })
    expect(shopClock('America/Denver', new Date('2026-06-02T05:00:00Z'))).toEqual({
      today: '2026-06-01',
      minutes: 23 * 60,
    })
  })

  it('limits the free-text fields as the database does', () => {
    const base = {
      size: 'good',
      colors: ['Pink'],
      designStyle: 'modern',
      occasion: 'home',
      customerName: 'Ann',
      customerPhone: '1',
      customerEmail: 'a@b.co',
      ...pickup,
    }
    expect(
      messages(bouquetSchema.safeParse({ ...base, specialRequests: 'x'.repeat(2001) })),
    ).toEqual(['Special requests must be at most 2000 characters'])
    expect(messages(bouquetSchema.safeParse({ ...base, customerName: 'x'.repeat(201) }))).toEqual([
      'Name must be at most 200 characters',
    ])
    expect(messages(bouquetSchema.safeParse({ ...base, customerPhone: '1'.repeat(51) }))).toEqual([
      'Phone number must be at most 50 characters',
    ])
  })

  it('becomes a row in snake_case with empty optional fields as null, its id the one it was given', () => {
    const id = '0b1a2c3d-0000-4000-8000-000000000001'
    const row = requestRow(
      {
        size: 'better',
        colors: ['Reds'],
        designStyle: 'traditional',
        occasion: 'birthday',
        namedArrangement: '',
        specialRequests: '  Peonies please ',
        customerName: ' Ann ',
        customerPhone: '435',
        customerEmail: 'a@b.co',
        website: '',
        fulfilment: 'pickup',
        wantedOn: '2026-06-02',
        recipientName: 'Not sent for a pick-up',
        deliveryAddress: 'x',
        cardMessage: ' Love ',
      },
      id,
    )
    expect(row).toEqual({
      id,
      size: 'better',
      colors: ['Reds'],
      design_style: 'traditional',
      occasion: 'birthday',
      named_arrangement: null,
      special_requests: 'Peonies please',
      customer_name: 'Ann',
      customer_phone: '435',
      customer_email: 'a@b.co',
      website: null,
      fulfilment: 'pickup',
      wanted_on: '2026-06-02',
      recipient_name: null,
      recipient_phone: null,
      delivery_address: null,
      card_message: 'Love',
    })
    expect(referenceOf(id)).toBe('0B1A2C3D')
  })

  it('rejects an occasion or size that is not offered', () => {
    const r = bouquetSchema.safeParse({
      size: 'huge',
      occasion: 'party',
      colors: ['Pink'],
      designStyle: 'modern',
      customerName: 'a',
      customerPhone: '1',
      customerEmail: 'a@b.co',
      ...pickup,
    })
    expect(messages(r)).toEqual(['Please select a size', 'Please select an occasion'])
  })
})

describe('auth form', () => {
  it('uses the spec messages', () => {
    expect(messages(authSchema.safeParse({ email: 'nope', password: '123' }))).toEqual([
      'Invalid email address',
      'Password must be at least 6 characters',
    ])
    expect(authSchema.safeParse({ email: 'a@example.com', password: '123456' }).success).toBe(true)
  })
})

describe('product form', () => {
  it('needs a name and a non-negative price; sku at most 100', () => {
    const r = productSchema.safeParse({
      ...productDefaults,
      name: ' ',
      base_price: -1,
      sku: 'x'.repeat(101),
    })
    expect(messages(r)).toEqual([
      'Name is required',
      'SKU must be at most 100 characters',
      'Price must be positive',
    ])
  })
  it('allows No Category and a UUID category', () => {
    expect(productSchema.safeParse({ ...productDefaults, name: 'A' }).success).toBe(true)
    expect(
      productSchema.safeParse({
        ...productDefaults,
        name: 'A',
        category_id: '6f1c2c8e-6a2c-4a55-9d2e-0d2c4f1b2a10',
      }).success,
    ).toBe(true)
    expect(
      productSchema.safeParse({ ...productDefaults, name: 'A', category_id: 'abc' }).success,
    ).toBe(false)
    expect(productSchema.safeParse({ ...productDefaults, name: 'x'.repeat(256) }).success).toBe(
      false,
    )
  })
  it('defaults to available and not featured', () => {
    expect(productDefaults.is_available).toBe(true)
    expect(productDefaults.is_featured).toBe(false)
  })
})

describe('category form and slugs', () => {
  it('validates the slug pattern', () => {
    const r = categorySchema.safeParse({
      name: 'A',
      slug: 'Bad Slug',
      order_by: 0,
      is_available: true,
    })
    expect(messages(r)).toEqual(['Slug must be lowercase with hyphens'])
    expect(
      categorySchema.safeParse({ name: 'A', slug: 'good-slug-2', order_by: 0, is_available: true })
        .success,
    ).toBe(true)
    expect(
      messages(
        categorySchema.safeParse({ name: 'A', slug: 'a', order_by: -1, is_available: true }),
      ),
    ).toEqual(['Order must be 0 or more'])
  })
  it('derives slugs from names', () => {
    expect(slugify('Love & Romance')).toBe('love-and-romance')
    expect(slugify('  Mother’s Day Blooms!! ')).toBe('mother-s-day-blooms')
    expect(slugify('Crème Brûlée')).toBe('creme-brulee')
    expect(categorySchema.shape.slug.safeParse(slugify('Everyday / Any Occasion')).success).toBe(
      true,
    )
  })
})

describe('image files', () => {
  it('accepts PNG, JPG and WEBP under 5 MB', () => {
    expect(validateImageFile({ type: 'image/png', size: 1000 })).toBeNull()
    expect(validateImageFile({ type: 'image/jpeg', size: 5 * 1024 * 1024 - 1 })).toBeNull()
    expect(validateImageFile({ type: 'image/webp', size: 10 })).toBeNull()
  })
  it('explains what is wrong', () => {
    expect(validateImageFile({ type: 'application/pdf', size: 10 })).toBe(
      'Please upload an image file',
    )
    expect(validateImageFile({ type: 'image/png', size: 5 * 1024 * 1024 })).toBe(
      'File size must be less than 5MB',
    )
    expect(validateImageFile({ type: 'image/gif', size: 10 })).toBe(
      'Please upload a PNG, JPG or WEBP image',
    )
  })
})

describe('the shop’s week', () => {
  it('is said in lines of days with the same hours', () => {
    expect(weekLines(defaultWeek)).toEqual([
      { days: 'Monday – Friday', time: '9:00 AM – 6:00 PM' },
      { days: 'Saturday', time: '10:00 AM – 4:00 PM' },
      { days: 'Sunday', time: 'Closed' },
    ])
    const split = defaultWeek.map((d) =>
      d.weekday === 3 ? { ...d, opens: null, closes: null } : d,
    )
    expect(weekLines(split).map((l) => l.days)).toEqual([
      'Monday – Tuesday',
      'Wednesday',
      'Thursday – Friday',
      'Saturday',
      'Sunday',
    ])
  })

  it('is edited with the database’s rules, and saved as it stores it', () => {
    const form = hoursForm(defaultWeek)
    expect(hoursSchema.safeParse(form).success).toBe(true)
    expect(weekOf(form)).toEqual(defaultWeek)
    const bad = {
      days: form.days.map((d) =>
        d.weekday === 1 ? { ...d, closes: '08:00' } : d.weekday === 2 ? { ...d, opens: '' } : d,
      ),
    }
    expect(messages(hoursSchema.safeParse(bad))).toEqual([
      'Closing time must be after opening time',
      'Choose an opening time',
    ])
    // A closed day needs no times.
    const sunday = {
      days: form.days.map((d) =>
        d.weekday === 7 ? { ...d, open: false, opens: '', closes: '' } : d,
      ),
    }
    expect(hoursSchema.safeParse(sunday).success).toBe(true)
  })
})
