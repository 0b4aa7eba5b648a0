import { useQuery } from '@tanstack/react-query';
import { api } from '../api';

// The two-factor endpoints' answers (docs/security.md, "Two-factor sign-in").
export interface TotpStatus {
  enabled: boolean;
  pending: boolean;
  required: boolean;
  recoveryCodesLeft: number;
}

export interface TotpEnrolment {
  otpauthUrl: string;
  secret: string;
  qr: string; // a data:image/png URL rendered by the server
}

export interface SignIn {
  time: string;
  action: string;
  ip?: string;
  userAgent?: string;
  secondFactor?: string;
}

export const useTotpStatus = () =>
  useQuery({ queryKey: ['auth', 'totp'], queryFn: () => api.get<TotpStatus>('/auth/totp'), staleTime: 0 });

export const useSignIns = () =>
  useQuery({ queryKey: ['auth', 'sessions'], queryFn: () => api.get<SignIn[]>('/auth/sessions') });
