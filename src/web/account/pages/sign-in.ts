import { html } from '../../html.js';
import { layout } from '../../layout.js';

/** The sign-in form; `next` is the page of this service to go on to once signed in. */
export function signInPage(csrf: string, problem?: string, email = '', next?: string): string {
  return layout(
    'Sign in',
    html`<section>
      <h1>Sign in</h1>
      <p class="muted">Sign in to follow your programs and to create and revoke your API keys.</p>
      ${problem ? html`<p class="notice error" role="alert">${problem}</p>` : ''}
      <form method="post" action="/account/sign-in">
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" />
        <p><button type="submit">Sign in</button></p>
      </form>
    </section>`,
  );
}
