import { QueryCache, QueryClient, MutationCache, queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, client, dataOf, versioned, type AuthStatus, type ResourceMeta, type Row, type Versioned } from './api';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { sayCatalog } from './builtinWords';
import { applyAccountLanguage } from './i18n';

// onUnauthorized is set by the router once it is mounted: a 401 anywhere
// sends the operator to the sign-in page.
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void) {
  onUnauthorized = fn;
}

function handle(err: unknown) {
  if (err instanceof ApiError && err.status === 401) onUnauthorized();
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: handle }),
  mutationCache: new MutationCache({ onError: handle }),
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      // A refusal is not retried, nor a live room that did not answer in
      // time or whose game code failed (504 room_timeout, 500 room_failed):
      // asking a stuck room twice more only adds to its load, and the
      // pages that show rooms ask again every few seconds anyway.
      retry: (count, err) => !(err instanceof ApiError && ((err.status >= 400 && err.status < 500) || err.code === 'room_timeout' || err.code === 'room_failed')) && count < 2,
    },
  },
});

// useAuthStatus asks for the catalog along (?with=catalog): the list a
// deep link opens is then the second request after the HTML, not the
// third.
export const useAuthStatus = () =>
  useQuery({
    queryKey: ['auth', 'status'],
    queryFn: async () => {
      const s = await dataOf(client.GET('/auth/status', { params: { query: { with: 'catalog' } } }));
      if (s.catalog) queryClient.setQueryData(['catalog'], s.catalog);
      const { catalog: _, ...status } = s;
      return status as AuthStatus;
    },
    staleTime: 0,
  });

// useMe is the signed-in operator. Their account's language (locale: ""
// for the browser's) is applied as it arrives: after a sign-in, on each
// load of the panel, and when another browser changed it.
export const useMe = () =>
  useQuery({
    queryKey: ['auth', 'me'],
    // The signal: a language just chosen cancels an answer on its way
    // (AccountPage), which would otherwise apply the one before.
    queryFn: async ({ signal }) => {
      const me = await dataOf(client.GET('/auth/me', { signal }));
      applyAccountLanguage(me.locale);
      return me;
    },
  });

// useFeatures says which optional parts the server has; everything is
// assumed until /auth/me answers.
export function useFeatures() {
  const me = useMe();
  return { ban: true, revokeSessions: true, rooms: true, reports: undefined as boolean | undefined, ...me.data?.features };
}

// useCatalog is the catalog (GET /admin-api), its built-in tables' words
// in the operator's language: one answer in one language is one object,
// whichever component asks, so its resources and columns can be compared
// by identity.
export function useCatalog() {
  const lng = useTranslation().i18n.resolvedLanguage ?? 'en';
  const select = useCallback((data: ResourceMeta[]) => sayCatalog(data, lng), [lng]);
  return useQuery({ queryKey: ['catalog'], queryFn: () => dataOf(client.GET('/')), staleTime: 60_000, select });
}

export function useResourceMeta(key: string | undefined): ResourceMeta | undefined {
  const { data } = useCatalog();
  return data?.find((r) => r.name === key);
}

// useUsersMeta is the panel's users resource, as the catalog marks it
// (users), when the operator may list or read it.
export function useUsersMeta(): ResourceMeta | undefined {
  const { data } = useCatalog();
  return data?.find((r) => r.users);
}

// roomsQuery is the live rooms' list (GET /rooms).
export const roomsQuery = () => ({ queryKey: ['rooms'], queryFn: () => dataOf(client.GET('/rooms')) });

// useRoomsEnabled is true when the server has live rooms the operator may
// list: GET /rooms answers (not 501, not 403). A mod without "rooms" in its
// scopes is not asked, so no refused request is made for nothing.
export function useRoomsEnabled(): boolean {
  const me = useMe();
  const may = me.data !== undefined && me.data.features?.rooms !== false && (me.data.role === 'admin' || (me.data.scopes ?? []).includes('rooms'));
  const q = useQuery({ ...roomsQuery(), staleTime: 10_000, enabled: may });
  return may && q.isSuccess;
}

// rowQuery is the one read of a row by id. ['row', resource, id] holds
// the row with its version (the answer's ETag), so whatever takes the row
// from the cache (its page, its edit form, a picker's label) holds the
// version of exactly the values it shows, and a write sends that version
// back in If-Match. Those that only show the row select it with rowOf.
export const rowQuery = (resource: string, id: string) =>
  queryOptions({
    queryKey: ['row', resource, id],
    queryFn: ({ signal }): Promise<Versioned> => versioned(client.GET('/{resource}/{id}', { params: { path: { resource, id } }, signal })),
  });

export const rowOf = (v: Versioned): Row => v.row;
