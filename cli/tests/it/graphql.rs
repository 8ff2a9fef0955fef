//! supagate's pg_graphql (extensions/pgrx/pg_graphql, built by scripts/build-extensions and
//! embedded in the binary) in a served database: `graphql.resolve` and the image's
//! `graphql_public.graphql` answer as supabase/pg_graphql 1.5.11 does. Each case is a request
//! made by the owner, `anon` or a signed-in user (through `graphql_public.graphql`, in a
//! transaction of its own that is rolled back) and the exact response it gets.

use crate::support;

use serde_json::{Value, json};

/// The project's schema: inflected names, an enum with a mapping, a table with totalCount and a
/// description, a renamed column and relationship, a one-to-one, a view with a primary key from
/// its comment, a table without a primary key, a table under row level security, a column
/// `anon` may not read, and functions.
const SCHEMA: &str = r#"
-- As a `supabase db pull` dump says it: the schema must exist, empty, as the image leaves it.
create extension if not exists "pg_graphql" with schema "graphql";
comment on schema public is e'@graphql({"inflect_names": true})';

create type public.post_status as enum ('draft', 'published', 'in-review');
comment on type public.post_status is e'@graphql({"mappings": {"in-review": "IN_REVIEW"}})';

create table public.author (
  id int primary key,
  name text not null,
  email varchar(16),
  karma bigint,
  rating numeric(4, 2),
  born date,
  tags text[],
  profile jsonb,
  created_at timestamptz not null default '2024-01-01T00:00:00Z'
);
comment on table public.author is e'@graphql({"totalCount": {"enabled": true}, "description": "A writer"})';
comment on column public.author.born is e'@graphql({"name": "birthday"})';

create table public.post (
  id uuid primary key default gen_random_uuid(),
  author_id int not null references public.author (id),
  title text not null,
  status public.post_status not null default 'draft',
  views int
);
comment on constraint post_author_id_fkey on public.post
  is e'@graphql({"foreign_name": "writer", "local_name": "writings"})';

create table public.author_settings (
  author_id int primary key references public.author (id),
  theme text
);

create table public.note (
  id int primary key,
  owner uuid not null default auth.uid(),
  body text not null,
  shared boolean not null default false
);
alter table public.note enable row level security;
create policy "read shared or own" on public.note for select using (shared or owner = auth.uid());
create policy "add own" on public.note for insert with check (owner = auth.uid());
create policy "change own" on public.note for update using (owner = auth.uid());
create policy "remove own" on public.note for delete using (owner = auth.uid());

create view public.prolific as select id, name, karma from public.author where karma > 10;
comment on view public.prolific is e'@graphql({"primary_key_columns": ["id"], "name": "Prolific"})';

create table public.no_key (x int);

-- Functions: a computed field, a query returning a connection, a query returning a scalar, a
-- mutation returning a record.
create function public._display_name(rec public.author) returns text
  stable language sql as $$ select rec.name || coalesce(' <' || rec.email || '>', '') $$;
create function public.search_posts(term text, lim int default 10) returns setof public.post
  stable language sql as $$ select * from public.post where title ilike '%' || term || '%' order by title limit lim $$;
create function public.karma_of(author_id int) returns bigint
  stable language sql as $$ select karma from public.author where id = author_id $$;
create function public.bump_karma(author_id int, by int default 1) returns public.author
  volatile language sql as $$ update public.author set karma = coalesce(karma, 0) + by where id = author_id returning * $$;

revoke all on public.author, public.post, public.author_settings from anon;
grant select (id, name, karma, rating, born, tags, profile, created_at) on public.author to anon;
grant select on public.post, public.author_settings to anon;

insert into public.author values
  (1, 'Ada', 'ada@x.io', 9007199254740993, 4.50, '1815-12-10', '{math,poetry}', '{"lang": "en"}', '2024-01-01T10:00:00Z'),
  (2, 'Bob', null, 12, null, null, '{poetry}', null, '2024-01-02T10:00:00Z'),
  (3, 'Cy', 'cy@x.io', 30, 1.25, '1990-01-01', null, null, '2024-01-03T10:00:00Z'),
  (4, 'Dee', null, null, null, null, '{}', null, '2024-01-04T10:00:00Z');
insert into public.post values
  ('00000000-0000-0000-0000-000000000001', 1, 'Notes on the engine', 'published', 100),
  ('00000000-0000-0000-0000-000000000002', 1, 'Poems', 'draft', null),
  ('00000000-0000-0000-0000-000000000003', 2, 'Hello', 'in-review', 5);
insert into public.author_settings values (1, 'dark');
insert into public.note values
  (1, '11111111-1111-1111-1111-111111111111', 'mine', false),
  (2, '22222222-2222-2222-2222-222222222222', 'theirs', false),
  (3, '22222222-2222-2222-2222-222222222222', 'shared', true);
"#;

/// A signed-in user who owns note 1.
const USER: &str = "11111111-1111-1111-1111-111111111111";

#[derive(Clone, Copy)]
enum Who {
    Owner,
    Anon,
    User(&'static str),
}

struct Case {
    who: Who,
    query: &'static str,
    variables: Value,
    want: Value,
    /// SQL run in the same transaction after the request, and the text of its one value.
    then: Option<(&'static str, &'static str)>,
}

fn case(who: Who, query: &'static str, want: Value) -> Case {
    Case {
        who,
        query,
        variables: json!({}),
        want,
        then: None,
    }
}

impl Case {
    fn variables(mut self, v: Value) -> Case {
        self.variables = v;
        self
    }
    fn then(mut self, sql: &'static str, text: &'static str) -> Case {
        self.then = Some((sql, text));
        self
    }
}

fn rows(messages: &[tokio_postgres::SimpleQueryMessage]) -> Vec<Option<String>> {
    messages
        .iter()
        .filter_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(r) => Some(r.get(0).map(str::to_string)),
            _ => None,
        })
        .collect()
}

async fn check(gw: &support::Gateway, cases: Vec<Case>) {
    let client = gw.session_on(&gw.dbname).await;
    for c in cases {
        let (query, variables) = (c.query, c.variables.to_string());
        let mut sql = "begin; set local timezone = 'UTC';".to_string();
        let mut skip = 0;
        match c.who {
            Who::Owner => sql.push_str(&format!(
                "select graphql.resolve($gql${query}$gql$, $v${variables}$v$::jsonb);"
            )),
            Who::Anon | Who::User(_) => {
                if let Who::User(sub) = c.who {
                    sql.push_str(&format!(
                        "set local role authenticated; select set_config('request.jwt.claims', \
                         '{{\"sub\": \"{sub}\", \"role\": \"authenticated\"}}', true);"
                    ));
                    skip = 1;
                } else {
                    sql.push_str("set local role anon;");
                }
                sql.push_str(&format!(
                    "select graphql_public.graphql(query := $gql${query}$gql$, \
                     variables := $v${variables}$v$::jsonb);"
                ));
            }
        }
        if let Some((then, _)) = c.then {
            sql.push_str(then);
        }
        sql.push_str("rollback;");
        let messages = client
            .simple_query(&sql)
            .await
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        let got = rows(&messages);
        let response: Value = serde_json::from_str(got[skip].as_deref().unwrap_or("null")).unwrap();
        assert_eq!(response, c.want, "{query}\n  variables {variables}");
        if let Some((then, text)) = c.then {
            assert_eq!(
                got[skip + 1].as_deref(),
                Some(text),
                "{query}\n  then {then}"
            );
        }
    }
}

fn reads() -> Vec<Case> {
    use Who::*;
    vec![
        case(
            Owner,
            "{ authorCollection(first: 2) { totalCount edges { cursor node { nodeId id name email karma rating birthday tags profile createdAt } } } }",
            json!({"data": {"authorCollection": {"totalCount": 4, "edges": [
                {"cursor": "WzFd", "node": {"nodeId": "WyJwdWJsaWMiLCAiYXV0aG9yIiwgMV0=", "id": 1, "name": "Ada", "email": "ada@x.io",
                    "karma": "9007199254740993", "rating": "4.50", "birthday": "1815-12-10", "tags": ["math", "poetry"],
                    "profile": "{\"lang\": \"en\"}", "createdAt": "2024-01-01T10:00:00+00:00"}},
                {"cursor": "WzJd", "node": {"nodeId": "WyJwdWJsaWMiLCAiYXV0aG9yIiwgMl0=", "id": 2, "name": "Bob", "email": null,
                    "karma": "12", "rating": null, "birthday": null, "tags": ["poetry"], "profile": null,
                    "createdAt": "2024-01-02T10:00:00+00:00"}}]}}}),
        ),
        // Filters: several at one level are and-ed; or, not, in, ilike, startsWith, is.
        case(
            Owner,
            r#"{ authorCollection(filter: {karma: {gt: "10"}, name: {startsWith: "B"}}) { edges { node { id } } } }"#,
            json!({"data": {"authorCollection": {"edges": [{"node": {"id": 2}}]}}}),
        ),
        case(
            Owner,
            r#"{ authorCollection(filter: {or: [{id: {eq: 1}}, {name: {ilike: "c%"}}], not: {id: {in: [3]}}}) { edges { node { id } } } }"#,
            json!({"data": {"authorCollection": {"edges": [{"node": {"id": 1}}]}}}),
        ),
        case(
            Owner,
            "{ authorCollection(filter: {email: {is: NULL}}, orderBy: [{karma: DescNullsLast}]) { edges { node { id karma } } } }",
            json!({"data": {"authorCollection": {"edges": [{"node": {"id": 2, "karma": "12"}}, {"node": {"id": 4, "karma": null}}]}}}),
        ),
        case(
            Owner,
            r#"{ authorCollection(filter: {id: {neq: 1, gte: 2, lte: 3}, name: {like: "%y"}}) { edges { node { id } } } }"#,
            json!({"data": {"authorCollection": {"edges": [{"node": {"id": 3}}]}}}),
        ),
        // Array columns: contains (from a variable, with the operation's filter type).
        case(
            Owner,
            "query Q($n: Int!, $f: AuthorFilter) { authorCollection(first: $n, filter: $f) { edges { node { id } } } }",
            json!({"data": {"authorCollection": {"edges": [{"node": {"id": 1}}]}}}),
        )
        .variables(json!({"n": 1, "f": {"tags": {"contains": ["poetry"]}}})),
        // Relay pagination: forward from a cursor, backward from the end.
        case(
            Owner,
            r#"{ authorCollection(first: 2, after: "WzFd") { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { node { id } } } }"#,
            json!({"data": {"authorCollection": {
                "pageInfo": {"hasNextPage": true, "hasPreviousPage": true, "startCursor": "WzJd", "endCursor": "WzNd"},
                "edges": [{"node": {"id": 2}}, {"node": {"id": 3}}]}}}),
        ),
        case(
            Owner,
            "{ authorCollection(last: 2) { pageInfo { hasNextPage hasPreviousPage } edges { node { id } } } }",
            json!({"data": {"authorCollection": {"pageInfo": {"hasNextPage": false, "hasPreviousPage": true},
                "edges": [{"node": {"id": 3}}, {"node": {"id": 4}}]}}}),
        ),
        case(
            Owner,
            "{ authorCollection(first: 1, offset: 3) { pageInfo { hasNextPage hasPreviousPage } edges { node { id } } } }",
            json!({"data": {"authorCollection": {"pageInfo": {"hasNextPage": false, "hasPreviousPage": true},
                "edges": [{"node": {"id": 4}}]}}}),
        ),
        // Relationships: many-to-one and one-to-one by name overrides and inflection, one-to-many
        // as a connection with its own arguments; enum values through their mapping.
        case(
            Owner,
            "{ postCollection(orderBy: [{title: AscNullsLast}]) { edges { node { title status writer { name settings: authorSettings { theme } } } } } }",
            json!({"data": {"postCollection": {"edges": [
                {"node": {"title": "Hello", "status": "IN_REVIEW", "writer": {"name": "Bob", "settings": null}}},
                {"node": {"title": "Notes on the engine", "status": "published", "writer": {"name": "Ada", "settings": {"theme": "dark"}}}},
                {"node": {"title": "Poems", "status": "draft", "writer": {"name": "Ada", "settings": {"theme": "dark"}}}}]}}}),
        ),
        case(
            Owner,
            "{ authorCollection(filter: {id: {lt: 3}}) { edges { node { name writings(orderBy: [{title: DescNullsFirst}]) { edges { node { title views } } } authorSettings { theme } } } } }",
            json!({"data": {"authorCollection": {"edges": [
                {"node": {"name": "Ada", "authorSettings": {"theme": "dark"}, "writings": {"edges": [
                    {"node": {"title": "Poems", "views": null}}, {"node": {"title": "Notes on the engine", "views": 100}}]}}},
                {"node": {"name": "Bob", "authorSettings": null, "writings": {"edges": [{"node": {"title": "Hello", "views": 5}}]}}}]}}}),
        ),
        case(
            Owner,
            "{ postCollection(filter: {status: {in: [IN_REVIEW, published]}}) { edges { node { title status } } } }",
            json!({"data": {"postCollection": {"edges": [
                {"node": {"title": "Notes on the engine", "status": "published"}}, {"node": {"title": "Hello", "status": "IN_REVIEW"}}]}}}),
        ),
        // A view with its primary key and type name from its comment; __typename.
        case(
            Owner,
            "{ prolificCollection { edges { node { __typename id name } } } __typename }",
            json!({"data": {"__typename": "Query", "prolificCollection": {"edges": [
                {"node": {"__typename": "Prolific", "id": 1, "name": "Ada"}},
                {"node": {"__typename": "Prolific", "id": 2, "name": "Bob"}},
                {"node": {"__typename": "Prolific", "id": 3, "name": "Cy"}}]}}}),
        ),
        // A record by its node id, with fragments on its type.
        case(
            Owner,
            r#"{ node(nodeId: "WyJwdWJsaWMiLCAiYXV0aG9yIiwgM10=") { nodeId ... on Author { name } ... on Post { title } } }"#,
            json!({"data": {"node": {"nodeId": "WyJwdWJsaWMiLCAiYXV0aG9yIiwgM10=", "name": "Cy"}}}),
        ),
        case(
            Owner,
            "{ authorCollection(first: 1) { edges { node { id ...F @skip(if: true) name @include(if: false) karma } } } } fragment F on Author { email }",
            json!({"data": {"authorCollection": {"edges": [{"node": {"id": 1, "karma": "9007199254740993"}}]}}}),
        ),
        // Grants decide the schema: anon may not read `email`; row level security the rows.
        case(
            Anon,
            "{ authorCollection(first: 1) { edges { node { id email } } } }",
            json!({"data": null, "errors": [{"message": "Unknown field 'email' on type 'Author'"}]}),
        ),
        case(
            Anon,
            "{ authorCollection(first: 1) { edges { node { id name } } } }",
            json!({"data": {"authorCollection": {"edges": [{"node": {"id": 1, "name": "Ada"}}]}}}),
        ),
        case(
            Anon,
            "{ noteCollection { edges { node { id body } } } }",
            json!({"data": {"noteCollection": {"edges": [{"node": {"id": 3, "body": "shared"}}]}}}),
        ),
        case(
            User(USER),
            "{ noteCollection { edges { node { id body } } } }",
            json!({"data": {"noteCollection": {"edges": [{"node": {"id": 1, "body": "mine"}}, {"node": {"id": 3, "body": "shared"}}]}}}),
        ),
        // Functions: a computed field (only for a role that may read the whole row), a query
        // returning a connection of a table's rows, one returning a 64-bit integer.
        case(
            Owner,
            "{ authorCollection(first: 3) { edges { node { id displayName } } } }",
            json!({"data": {"authorCollection": {"edges": [
                {"node": {"id": 1, "displayName": "Ada <ada@x.io>"}},
                {"node": {"id": 2, "displayName": "Bob"}},
                {"node": {"id": 3, "displayName": "Cy <cy@x.io>"}}]}}}),
        ),
        case(
            Anon,
            "{ authorCollection(first: 1) { edges { node { displayName } } } }",
            json!({"data": null, "errors": [{"message": "Unknown field 'displayName' on type 'Author'"}]}),
        ),
        case(
            Owner,
            r#"{ searchPosts(term: "o", first: 1) { pageInfo { hasNextPage } edges { node { title } } } }"#,
            json!({"data": {"searchPosts": {"pageInfo": {"hasNextPage": true}, "edges": [{"node": {"title": "Notes on the engine"}}]}}}),
        ),
        case(
            Owner,
            "{ karmaOf(authorId: 1) }",
            json!({"data": {"karmaOf": "9007199254740993"}}),
        ),
    ]
}

fn writes() -> Vec<Case> {
    use Who::*;
    vec![
        case(
            Owner,
            r#"mutation { insertIntoAuthorCollection(objects: [{id: 5, name: "Eve", karma: "7", tags: ["x"]}, {id: 6, name: "Fay"}]) { affectedCount records { id name karma tags createdAt } } }"#,
            json!({"data": {"insertIntoAuthorCollection": {"affectedCount": 2, "records": [
                {"id": 5, "name": "Eve", "karma": "7", "tags": ["x"], "createdAt": "2024-01-01T00:00:00+00:00"},
                {"id": 6, "name": "Fay", "karma": null, "tags": null, "createdAt": "2024-01-01T00:00:00+00:00"}]}}}),
        )
        .then("select string_agg(name, ',' order by id) from public.author;", "Ada,Bob,Cy,Dee,Eve,Fay"),
        case(
            Owner,
            r#"mutation { updateAuthorCollection(set: {name: "Cyril"}, filter: {id: {eq: 3}}) { affectedCount records { id name } } }"#,
            json!({"data": {"updateAuthorCollection": {"affectedCount": 1, "records": [{"id": 3, "name": "Cyril"}]}}}),
        ),
        // atMost (1 by default) stops a change that reaches more rows, and undoes it.
        case(
            Owner,
            r#"mutation { updateAuthorCollection(set: {rating: "2"}, filter: {id: {lt: 3}}) { affectedCount } }"#,
            json!({"data": null, "errors": [{"message": "update impacts too many records"}]}),
        )
        .then("select count(*) from public.author where rating = 2;", "0"),
        case(
            Owner,
            "mutation { deleteFromPostCollection(filter: {status: {eq: draft}}) { affectedCount records { title writer { name } } } }",
            json!({"data": {"deleteFromPostCollection": {"affectedCount": 1, "records": [{"title": "Poems", "writer": {"name": "Ada"}}]}}}),
        ),
        // A failing field undoes the fields before it.
        case(
            Owner,
            r#"mutation { a: insertIntoAuthorCollection(objects: [{id: 7, name: "Gus"}]) { affectedCount } b: insertIntoAuthorCollection(objects: [{id: 7, name: "Gus again"}]) { affectedCount } }"#,
            json!({"data": null, "errors": [{"message": "duplicate key value violates unique constraint \"author_pkey\""}]}),
        )
        .then("select count(*) from public.author where id = 7;", "0"),
        case(
            Owner,
            r#"mutation { insertIntoAuthorCollection(objects: [{id: 8, name: "Hal", email: "a-very-long-address@example.com"}]) { affectedCount } }"#,
            json!({"data": null, "errors": [{"message": "Invalid input for String type. Maximum character length 16"}]}),
        ),
        case(
            Owner,
            "mutation { insertIntoAuthorCollection(objects: []) { affectedCount } }",
            json!({"data": null, "errors": [{"message": "At least one record must be provided to objects"}]}),
        ),
        case(
            Owner,
            "mutation { updateAuthorCollection(set: {}) { affectedCount } }",
            json!({"data": null, "errors": [{"message": "At least one mapping must be provided to set argument"}]}),
        ),
        case(Owner, "mutation { __typename }", json!({"data": {"__typename": "Mutation"}})),
        // A volatile function is a mutation; its defaults apply when an argument is left out.
        case(
            Owner,
            "mutation { dee: bumpKarma(authorId: 4, by: 5) { id name karma } bob: bumpKarma(authorId: 2) { karma } }",
            json!({"data": {"dee": {"id": 4, "name": "Dee", "karma": "5"}, "bob": {"karma": "13"}}}),
        ),
        // Under row level security, as the database's own policies say.
        case(
            Anon,
            r#"mutation { insertIntoNoteCollection(objects: [{id: 9, owner: "11111111-1111-1111-1111-111111111111", body: "x"}]) { affectedCount } }"#,
            json!({"data": null, "errors": [{"message": "new row violates row-level security policy for table \"note\""}]}),
        ),
        case(
            User(USER),
            r#"mutation { insertIntoNoteCollection(objects: [{id: 9, body: "new"}]) { affectedCount records { id body owner } } }"#,
            json!({"data": {"insertIntoNoteCollection": {"affectedCount": 1, "records": [{"id": 9, "body": "new", "owner": USER}]}}}),
        ),
        case(
            User(USER),
            r#"mutation { insertIntoNoteCollection(objects: [{id: 9, owner: "22222222-2222-2222-2222-222222222222", body: "forged"}]) { affectedCount } }"#,
            json!({"data": null, "errors": [{"message": "new row violates row-level security policy for table \"note\""}]}),
        ),
        case(
            User(USER),
            r#"mutation { updateNoteCollection(set: {body: "edited"}, filter: {id: {in: [1, 2, 3]}}, atMost: 5) { affectedCount records { id body } } }"#,
            json!({"data": {"updateNoteCollection": {"affectedCount": 1, "records": [{"id": 1, "body": "edited"}]}}}),
        ),
        case(
            User(USER),
            "mutation { deleteFromNoteCollection(filter: {}, atMost: 10) { affectedCount records { id } } }",
            json!({"data": {"deleteFromNoteCollection": {"affectedCount": 1, "records": [{"id": 1}]}}}),
        ),
        // Without privileges to write a table, its mutations are not in the schema.
        case(
            Anon,
            r#"mutation { insertIntoAuthorCollection(objects: [{id: 9, name: "x"}]) { affectedCount } }"#,
            json!({"data": null, "errors": [{"message": "Unknown field \"insertIntoAuthorCollection\" on type Mutation"}]}),
        ),
    ]
}

fn mistakes() -> Vec<Case> {
    use Who::*;
    let error = |m: &str| json!({"data": null, "errors": [{"message": m}]});
    let document_error = |m: &str| json!({"errors": [{"message": m}]});
    vec![
        case(
            Owner,
            "{ authorCollection { edges { node { id } } ",
            document_error(
                "query parse error: Parse error at 1:44\nUnexpected end of input\nExpected }\n",
            ),
        ),
        case(
            Owner,
            "{ account { id } }",
            error("Unknown field \"account\" on type Query"),
        ),
        // A table without a primary key is not reflected.
        case(
            Owner,
            "{ noKeyCollection { edges { node { x } } } }",
            error("Unknown field \"noKeyCollection\" on type Query"),
        ),
        case(
            Owner,
            "{ authorCollection { edges { node { id dne } } } }",
            error("Unknown field 'dne' on type 'Author'"),
        ),
        case(
            Owner,
            "{ postCollection { totalCount } }",
            error("unknown field in connection"),
        ),
        case(
            Owner,
            "{ authorCollection(first: -1) { edges { node { id } } } }",
            error("`first` must be an unsigned integer"),
        ),
        case(
            Owner,
            "{ authorCollection(first: 1, last: 1) { edges { node { id } } } }",
            error("only one of \"first\" and \"last\" may be provided"),
        ),
        case(
            Owner,
            "{ authorCollection(last: 1, offset: 1) { edges { node { id } } } }",
            error("\"offset\" may only be used with \"first\" and \"after\""),
        ),
        case(
            Owner,
            "{ authorCollection(limit: 1) { edges { node { id } } } }",
            error("Input contains extra keys [\"limit\"]"),
        ),
        case(
            Owner,
            "{ authorCollection(filter: {nope: {eq: 1}}) { edges { node { id } } } }",
            error("Input for type AuthorFilter contains extra keys [\"nope\"]"),
        ),
        case(
            Owner,
            r#"{ authorCollection(filter: {id: {eq: "one"}}) { edges { node { id } } } }"#,
            error("Invalid input for Int type"),
        ),
        case(
            Owner,
            "{ authorCollection(orderBy: [{id: Sideways}]) { edges { node { id } } } }",
            error("Invalid input for OrderByDirection type"),
        ),
        case(
            Owner,
            "{ postCollection(filter: {status: {eq: archived}}) { edges { node { title } } } }",
            error("Invalid input for PostStatus type"),
        ),
        case(
            Owner,
            r#"{ authorCollection(after: "not a cursor") { edges { node { id } } } }"#,
            error("Failed to decode cursor, error 1"),
        ),
        case(
            Owner,
            "query A { __typename } query B { __typename }",
            document_error("Operation not found"),
        ),
        case(
            Owner,
            "{ a: __typename } { b: __typename }",
            document_error("Anonymous operations must be the only defined operation"),
        ),
        case(
            Owner,
            "subscription { __typename }",
            document_error("Subscriptions are not supported"),
        ),
        case(
            Owner,
            "query Q($n: Int) { authorCollection(first: $n) { totalCount } }",
            document_error("variables must be an object"),
        )
        .variables(json!([1])),
    ]
}

fn introspection() -> Vec<Case> {
    use Who::*;
    vec![
        case(
            Owner,
            r#"{ __type(name: "Post") { kind name description interfaces { name } fields { name type { kind name ofType { kind name } } } } }"#,
            json!({"data": {"__type": {"kind": "OBJECT", "name": "Post", "description": null, "interfaces": [{"name": "Node"}], "fields": [
                {"name": "nodeId", "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "ID"}}},
                {"name": "id", "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "UUID"}}},
                {"name": "authorId", "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "Int"}}},
                {"name": "title", "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "String"}}},
                {"name": "status", "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "ENUM", "name": "PostStatus"}}},
                {"name": "views", "type": {"kind": "SCALAR", "name": "Int", "ofType": null}},
                {"name": "writer", "type": {"kind": "NON_NULL", "name": null, "ofType": {"kind": "OBJECT", "name": "Author"}}}]}}}),
        ),
        case(
            Owner,
            r#"{ __type(name: "Author") { description fields { name } } }"#,
            json!({"data": {"__type": {"description": "A writer", "fields": [
                {"name": "nodeId"}, {"name": "id"}, {"name": "name"}, {"name": "email"}, {"name": "karma"}, {"name": "rating"},
                {"name": "birthday"}, {"name": "tags"}, {"name": "profile"}, {"name": "createdAt"}, {"name": "writings"},
                {"name": "authorSettings"}, {"name": "displayName"}]}}}),
        ),
        case(
            Owner,
            r#"{ __type(name: "PostFilter") { kind inputFields { name type { kind name } } } }"#,
            json!({"data": {"__type": {"kind": "INPUT_OBJECT", "inputFields": [
                {"name": "id", "type": {"kind": "INPUT_OBJECT", "name": "UUIDFilter"}},
                {"name": "authorId", "type": {"kind": "INPUT_OBJECT", "name": "IntFilter"}},
                {"name": "title", "type": {"kind": "INPUT_OBJECT", "name": "StringFilter"}},
                {"name": "status", "type": {"kind": "INPUT_OBJECT", "name": "PostStatusFilter"}},
                {"name": "views", "type": {"kind": "INPUT_OBJECT", "name": "IntFilter"}},
                {"name": "nodeId", "type": {"kind": "INPUT_OBJECT", "name": "IDFilter"}},
                {"name": "and", "type": {"kind": "LIST", "name": null}},
                {"name": "or", "type": {"kind": "LIST", "name": null}},
                {"name": "not", "type": {"kind": "INPUT_OBJECT", "name": "PostFilter"}}]}}}),
        ),
        case(
            Owner,
            r#"{ __type(name: "PostStatus") { kind enumValues { name } } }"#,
            json!({"data": {"__type": {"kind": "ENUM", "enumValues": [{"name": "draft"}, {"name": "published"}, {"name": "IN_REVIEW"}]}}}),
        ),
        case(
            Owner,
            r#"{ __type(name: "Int") { name kind description } missing: __type(name: "Nope") { name } }"#,
            json!({"data": {"__type": {"name": "Int", "kind": "SCALAR", "description": "A scalar integer up to 32 bits"}, "missing": null}}),
        ),
        case(
            Anon,
            r#"{ __type(name: "Mutation") { fields { name args { name defaultValue type { kind ofType { name } } } } } }"#,
            json!({"data": {"__type": {"fields": [
                {"name": "bumpKarma", "args": [
                    {"name": "authorId", "defaultValue": null, "type": {"kind": "NON_NULL", "ofType": {"name": "Int"}}},
                    {"name": "by", "defaultValue": "1", "type": {"kind": "SCALAR", "ofType": null}}]},
                {"name": "deleteFromNoteCollection", "args": [
                    {"name": "filter", "defaultValue": null, "type": {"kind": "INPUT_OBJECT", "ofType": null}},
                    {"name": "atMost", "defaultValue": "1", "type": {"kind": "NON_NULL", "ofType": {"name": "Int"}}}]},
                {"name": "deleteFromProlificCollection", "args": [
                    {"name": "filter", "defaultValue": null, "type": {"kind": "INPUT_OBJECT", "ofType": null}},
                    {"name": "atMost", "defaultValue": "1", "type": {"kind": "NON_NULL", "ofType": {"name": "Int"}}}]},
                {"name": "insertIntoNoteCollection", "args": [
                    {"name": "objects", "defaultValue": null, "type": {"kind": "NON_NULL", "ofType": {"name": null}}}]},
                {"name": "insertIntoProlificCollection", "args": [
                    {"name": "objects", "defaultValue": null, "type": {"kind": "NON_NULL", "ofType": {"name": null}}}]},
                {"name": "updateNoteCollection", "args": [
                    {"name": "set", "defaultValue": null, "type": {"kind": "NON_NULL", "ofType": {"name": "NoteUpdateInput"}}},
                    {"name": "filter", "defaultValue": null, "type": {"kind": "INPUT_OBJECT", "ofType": null}},
                    {"name": "atMost", "defaultValue": "1", "type": {"kind": "NON_NULL", "ofType": {"name": "Int"}}}]},
                {"name": "updateProlificCollection", "args": [
                    {"name": "set", "defaultValue": null, "type": {"kind": "NON_NULL", "ofType": {"name": "ProlificUpdateInput"}}},
                    {"name": "filter", "defaultValue": null, "type": {"kind": "INPUT_OBJECT", "ofType": null}},
                    {"name": "atMost", "defaultValue": "1", "type": {"kind": "NON_NULL", "ofType": {"name": "Int"}}}]}]}}}),
        ),
        case(
            Owner,
            "{ __schema { queryType { name } mutationType { name } subscriptionType { name } directives { name locations args { name } } } }",
            json!({"data": {"__schema": {"queryType": {"name": "Query"}, "mutationType": {"name": "Mutation"}, "subscriptionType": null,
                "directives": [
                    {"name": "include", "locations": ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"], "args": [{"name": "if"}]},
                    {"name": "skip", "locations": ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"], "args": [{"name": "if"}]}]}}}),
        ),
    ]
}

/// GraphiQL's and codegen tools' introspection query (graphql-js `getIntrospectionQuery`).
const INTROSPECTION_QUERY: &str = r#"
query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}
"#;

#[tokio::test]
async fn pg_graphql_answers_as_supabases() {
    let dir =
        support::scratch_project(&[("supabase/migrations/20240101000000_graphql.sql", SCHEMA)]);
    let gw = support::start_project(&dir, &[]);
    check(&gw, reads()).await;
    check(&gw, writes()).await;
    check(&gw, mistakes()).await;
    check(&gw, introspection()).await;

    // The full introspection query clients generate their types from: every type of every
    // table the role can read, and nothing that would make a client's schema invalid (each
    // type a field, argument or input field names is one `types` lists).
    let client = gw.session_on(&gw.dbname).await;
    let messages = client
        .simple_query(&format!(
            "begin; set local role anon; select graphql_public.graphql(query := $gql${INTROSPECTION_QUERY}$gql$); rollback;"
        ))
        .await
        .unwrap();
    let response: Value = serde_json::from_str(rows(&messages)[0].as_deref().unwrap()).unwrap();
    assert!(response.get("errors").is_none(), "{response}");
    let types = response["data"]["__schema"]["types"].as_array().unwrap();
    let names: Vec<&str> = types.iter().filter_map(|t| t["name"].as_str()).collect();
    for want in [
        "Author",
        "AuthorConnection",
        "AuthorEdge",
        "AuthorFilter",
        "AuthorOrderBy",
        "Post",
        "PostStatus",
        "PostStatusFilter",
        "Note",
        "NoteInsertInput",
        "NoteInsertResponse",
        "NoteUpdateInput",
        "NoteUpdateResponse",
        "NoteDeleteResponse",
        "Prolific",
        "Query",
        "Mutation",
        "Node",
        "PageInfo",
        "Cursor",
        "BigInt",
        "BigFloat",
        "JSON",
        "UUID",
        "Datetime",
        "Date",
        "Opaque",
        "FilterIs",
        "OrderByDirection",
        "__Schema",
        "__Type",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(
        !names.contains(&"AuthorInsertInput"),
        "anon may not insert authors"
    );
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "types are listed by name");
    fn named(t: &Value) -> &str {
        if t["name"].is_string() {
            t["name"].as_str().unwrap()
        } else {
            named(&t["ofType"])
        }
    }
    for t in types {
        let refs = t["fields"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|f| {
                std::iter::once(&f["type"])
                    .chain(f["args"].as_array().unwrap().iter().map(|a| &a["type"]))
            })
            .chain(
                t["inputFields"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| &f["type"]),
            );
        for r in refs {
            assert!(
                names.contains(&named(r)),
                "{} names the unknown type {}",
                t["name"],
                named(r)
            );
        }
    }

    // The entry point is the image's: a member of the extension, callable by the API roles.
    check_sql(
        &gw,
        &[
            (
                "select string_agg(p.oid::regprocedure::text, ', ' order by p.oid::regprocedure::text)
                   from pg_proc p join pg_depend d on d.objid = p.oid
                   join pg_extension e on e.oid = d.refobjid and e.extname = 'pg_graphql'
                  where p.proname in ('resolve', 'graphql')",
                "graphql.resolve(text,jsonb,text,jsonb), graphql_public.graphql(text,text,jsonb,jsonb)",
            ),
            (
                "select has_function_privilege('anon', 'graphql_public.graphql(text,text,jsonb,jsonb)', 'execute')
                    and has_schema_privilege('authenticated', 'graphql', 'usage')",
                "t",
            ),
            (
                "select extversion from pg_extension where extname = 'pg_graphql'",
                "1.5.11",
            ),
            // Dropped, the extension leaves the image's stand-in behind.
            (
                "begin; drop extension pg_graphql;
                 select graphql_public.graphql(query := '{ __typename }')::text; rollback;",
                r#"{"errors": [{"message": "pg_graphql extension is not enabled."}]}"#,
            ),
        ],
    )
    .await;
}

async fn check_sql(gw: &support::Gateway, cases: &[(&str, &str)]) {
    let client = gw.session_on(&gw.dbname).await;
    for (sql, want) in cases {
        let messages = client.simple_query(sql).await.unwrap();
        let got = rows(&messages);
        assert_eq!(
            got.last().cloned().flatten().as_deref(),
            Some(*want),
            "{sql}"
        );
    }
}
