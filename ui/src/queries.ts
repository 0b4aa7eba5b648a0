import { QueryCache, QueryClient, MutationCache, useQuery } from '@tanstack/react-query';
import { api, ApiError, type AuthStatus, type Me, type ResourceMeta, type RoomSummary } from './api';

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
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
  },
});

export const useAuthStatus = () =>
  useQuery({ queryKey: ['auth', 'status'], queryFn: () => api.get<AuthStatus>('/auth/status'), staleTime: 0 });

export const useMe = () => useQuery({ queryKey: ['auth', 'me'], queryFn: () => api.get<Me>('/auth/me') });

export const useCatalog = () =>
  useQuery({ queryKey: ['catalog'], queryFn: () => api.get<ResourceMeta[]>(''), staleTime: 60_000 });

export function useResourceMeta(key: string | undefined): ResourceMeta | undefined {
  const { data } = useCatalog();
  return data?.find((r) => r.name === key);
}

// useRoomsEnabled is true when the server has live rooms the operator may
// list: GET /rooms answers (not 501, not 403).
export function useRoomsEnabled(): boolean {
  const q = useQuery({ queryKey: ['rooms'], queryFn: () => api.get<RoomSummary[]>('/rooms'), staleTime: 10_000 });
  return q.isSuccess;
}
