import { useQuery } from '@tanstack/react-query';
import { client, dataOf, type Schemas } from '../api';

// The two-factor endpoints' answers (docs/security.md, "Two-factor sign-in").
export type TotpStatus = Schemas['TotpStatus'];
export type TotpEnrolment = Schemas['TotpEnrolment'];
export type SignIn = Schemas['SignIn'];

export const useTotpStatus = () =>
  useQuery({ queryKey: ['auth', 'totp'], queryFn: () => dataOf(client.GET('/auth/totp')), staleTime: 0 });

export const useSignIns = () =>
  useQuery({ queryKey: ['auth', 'sessions'], queryFn: () => dataOf(client.GET('/auth/sessions')) });
