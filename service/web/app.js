// gunbai's placeholder page: says that its script ran (the page's only
// dynamic text, set with textContent, never as markup).
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  const status = document.getElementById('status');
  if (status) status.textContent = 'The API answers at ' + location.origin + '/v1/.';
});
