"""The live app's handlers, one module per concern; :mod:`sheli.serve.app` lists their
routes in one table.

- :mod:`.pages`: the HTML pages (home, a link's view, the pack, the results sheet);
- :mod:`.live`: the state, a performer's cues and the event stream;
- :mod:`.inputs`: what moves the rite (advance, arrows, corrections, taps, the drum);
- :mod:`.links`: the director's links (list, new, revoke);
- :mod:`.downloads`: the export, the CSV files, a step's diagram, a link's QR code;
- :mod:`.create`: creating an event from the home page.

Every handler is ``async def handler(srv, request)``.

>>> from sheli.serve.views import inputs
>>> callable(inputs.advance)
True
"""
