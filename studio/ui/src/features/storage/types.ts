import type { SupabaseClient } from '@supabase/supabase-js'

type Storage = SupabaseClient['storage']
export type Bucket = NonNullable<Awaited<ReturnType<Storage['listBuckets']>>['data']>[number]
export type FileObject = NonNullable<
  Awaited<ReturnType<ReturnType<Storage['from']>['list']>>['data']
>[number]
