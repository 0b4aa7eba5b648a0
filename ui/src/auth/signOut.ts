import { client } from '../api';
import { queryClient } from '../queries';
import { stopReauth } from './session';

// signOut ends this session (or, everywhere, every session of the
// operator), shows the sign-in page through leave, and only then forgets
// every cached answer, so that no page still on screen asks again.
export async function signOut(leave: () => void, everywhere = false): Promise<void> {
  stopReauth();
  try {
    await (everywhere ? client.POST('/auth/logout-everywhere') : client.POST('/auth/logout'));
  } finally {
    leave();
    queryClient.clear();
  }
}
