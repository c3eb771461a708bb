import './style.css';

// A little behaviour so the bundle is real: mark the current page in the navigation.
for (const link of document.querySelectorAll('nav a')) {
  if (link.getAttribute('href') === location.pathname) link.setAttribute('aria-current', 'page');
}
