"""Trunk post-build hook: put the hash of the page's inline loader script into its
Content-Security-Policy, so the policy allows that one script and nothing else inline."""
import base64
import hashlib
import os
import re
import sys

staging = os.environ.get("TRUNK_STAGING_DIR", "dist")
path = os.path.join(staging, "index.html")
html = open(path, encoding="utf-8").read()
scripts = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.S)
hashes = " ".join(
    "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"
    for s in scripts
)
if "'sha256-INLINE'" not in html:
    sys.exit("csp.py: the CSP placeholder 'sha256-INLINE' is missing from index.html")
html = html.replace("'sha256-INLINE'", hashes or "")
open(path, "w", encoding="utf-8").write(html)
print(f"csp.py: {len(scripts)} inline script(s) hashed into the Content-Security-Policy")
