export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  // Allows to automatically instantiate createClient with right options
  // instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)
  __InternalSupabase: {
    PostgrestVersion: "14.1"
  }
  graphql_public: {
    Tables: {
      [_ in never]: never
    }
    Views: {
      [_ in never]: never
    }
    Functions: {
      [_ in never]: never
    }
    Enums: {
      [_ in never]: never
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
  public: {
    Tables: {
      bouquet_requests: {
        Row: {
          card_message: string | null
          client_address: string | null
          colors: string[]
          created_at: string
          customer_email: string
          customer_name: string
          customer_phone: string
          delivery_address: string | null
          design_style: string
          fulfilment: string | null
          id: string
          named_arrangement: string | null
          notes: string | null
          occasion: string
          read_at: string | null
          recipient_name: string | null
          recipient_phone: string | null
          reference: string | null
          size: string
          size_price: number | null
          special_requests: string | null
          status: Database["public"]["Enums"]["request_status"]
          updated_at: string
          wanted_on: string | null
          website: string | null
        }
        Insert: {
          card_message?: string | null
          client_address?: string | null
          colors: string[]
          created_at?: string
          customer_email: string
          customer_name: string
          customer_phone: string
          delivery_address?: string | null
          design_style: string
          fulfilment?: string | null
          id?: string
          named_arrangement?: string | null
          notes?: string | null
          occasion: string
          read_at?: string | null
          recipient_name?: string | null
          recipient_phone?: string | null
          reference?: never
          size: string
          size_price?: number | null
          special_requests?: string | null
          status?: Database["public"]["Enums"]["request_status"]
          updated_at?: string
          wanted_on?: string | null
          website?: string | null
        }
        Update: {
          card_message?: string | null
          client_address?: string | null
          colors?: string[]
          created_at?: string
          customer_email?: string
          customer_name?: string
          customer_phone?: string
          delivery_address?: string | null
          design_style?: string
          fulfilment?: string | null
          id?: string
          named_arrangement?: string | null
          notes?: string | null
          occasion?: string
          read_at?: string | null
          recipient_name?: string | null
          recipient_phone?: string | null
          reference?: never
          size?: string
          size_price?: number | null
          special_requests?: string | null
          status?: Database["public"]["Enums"]["request_status"]
          updated_at?: string
          wanted_on?: string | null
          website?: string | null
        }
        Relationships: []
      }
      categories: {
        Row: {
          created_at: string
          description: string | null
          id: string
          image_url: string | null
          is_available: boolean
          name: string
          order_by: number
          slug: string
          updated_at: string
        }
        Insert: {
          created_at?: string
          description?: string | null
          id?: string
          image_url?: string | null
          is_available?: boolean
          name: string
          order_by?: number
          slug: string
          updated_at?: string
        }
        Update: {
          created_at?: string
          description?: string | null
          id?: string
          image_url?: string | null
          is_available?: boolean
          name?: string
          order_by?: number
          slug?: string
          updated_at?: string
        }
        Relationships: []
      }
      product_categories: {
        Row: {
          category_id: string
          created_at: string
          product_id: string
        }
        Insert: {
          category_id: string
          created_at?: string
          product_id: string
        }
        Update: {
          category_id?: string
          created_at?: string
          product_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "product_categories_category_id_fkey"
            columns: ["category_id"]
            isOneToOne: false
            referencedRelation: "categories"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "product_categories_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
        ]
      }
      products: {
        Row: {
          base_price: number
          category_id: string | null
          created_at: string
          description: string | null
          ecwid_product_id: string | null
          ecwid_product_slug: string | null
          id: string
          is_available: boolean
          is_featured: boolean
          main_image_url: string | null
          name: string
          sku: string | null
          updated_at: string
        }
        Insert: {
          base_price?: number
          category_id?: string | null
          created_at?: string
          description?: string | null
          ecwid_product_id?: string | null
          ecwid_product_slug?: string | null
          id?: string
          is_available?: boolean
          is_featured?: boolean
          main_image_url?: string | null
          name: string
          sku?: string | null
          updated_at?: string
        }
        Update: {
          base_price?: number
          category_id?: string | null
          created_at?: string
          description?: string | null
          ecwid_product_id?: string | null
          ecwid_product_slug?: string | null
          id?: string
          is_available?: boolean
          is_featured?: boolean
          main_image_url?: string | null
          name?: string
          sku?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "products_category_id_fkey"
            columns: ["category_id"]
            isOneToOne: false
            referencedRelation: "categories"
            referencedColumns: ["id"]
          },
        ]
      }
      shop_closures: {
        Row: {
          day: string
          note: string
        }
        Insert: {
          day: string
          note: string
        }
        Update: {
          day?: string
          note?: string
        }
        Relationships: []
      }
      shop_hours: {
        Row: {
          closes: string | null
          opens: string | null
          weekday: number
        }
        Insert: {
          closes?: string | null
          opens?: string | null
          weekday: number
        }
        Update: {
          closes?: string | null
          opens?: string | null
          weekday?: number
        }
        Relationships: []
      }
      shop_settings: {
        Row: {
          id: boolean
          notify_email: string | null
          same_day_cutoff: string
          shop_email: string | null
          shop_name: string
          shop_phone: string
          site_url: string | null
          size_prices: Json
          time_zone: string
          updated_at: string
        }
        Insert: {
          id?: boolean
          notify_email?: string | null
          same_day_cutoff?: string
          shop_email?: string | null
          shop_name?: string
          shop_phone?: string
          site_url?: string | null
          size_prices?: Json
          time_zone?: string
          updated_at?: string
        }
        Update: {
          id?: boolean
          notify_email?: string | null
          same_day_cutoff?: string
          shop_email?: string | null
          shop_name?: string
          shop_phone?: string
          site_url?: string | null
          size_prices?: Json
          time_zone?: string
          updated_at?: string
        }
        Relationships: []
      }
      user_roles: {
        Row: {
          created_at: string
          id: string
          role: Database["public"]["Enums"]["app_role"]
          user_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          role: Database["public"]["Enums"]["app_role"]
          user_id: string
        }
        Update: {
          created_at?: string
          id?: string
          role?: Database["public"]["Enums"]["app_role"]
          user_id?: string
        }
        Relationships: []
      }
    }
    Views: {
      [_ in never]: never
    }
    Functions: {
      apply_import: {
        Args: { rows: Json }
        Returns: {
          sku: string
          name: string
          status: string
          message: string
          product_internal_id: string
        }[]
      }
      dashboard_counts: { Args: never; Returns: Json }
      grant_admin: { Args: { email: string }; Returns: string }
      is_admin: { Args: never; Returns: boolean }
      list_admins: {
        Args: never
        Returns: {
          user_id: string
          email: string
          since: string
          last_sign_in_at: string
        }[]
      }
      request_options: { Args: never; Returns: Json }
      require_admin: { Args: never; Returns: undefined }
      revoke_admin: { Args: { email: string }; Returns: boolean }
      save_product: {
        Args: { product: Json; category_ids: string[]; id?: string }
        Returns: {
          base_price: number
          category_id: string | null
          created_at: string
          description: string | null
          ecwid_product_id: string | null
          ecwid_product_slug: string | null
          id: string
          is_available: boolean
          is_featured: boolean
          main_image_url: string | null
          name: string
          sku: string | null
          updated_at: string
        }
      }
      save_shop_hours: {
        Args: { week: Json }
        Returns: {
          closes: string | null
          opens: string | null
          weekday: number
        }[]
      }
      site_address: { Args: never; Returns: string }
      unused_images: {
        Args: never
        Returns: {
          bucket_id: string
          name: string
        }[]
      }
    }
    Enums: {
      app_role: "admin"
      request_status: "new" | "contacted" | "done"
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] &
        DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  graphql_public: {
    Enums: {},
  },
  public: {
    Enums: {
      app_role: ["admin"],
      request_status: ["new", "contacted", "done"],
    },
  },
} as const
