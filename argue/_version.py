"""argue's version, in a module of its own: anything may import it without loading the
package's lazy API (``argue.__getattr__`` loads the application layer)."""

__version__ = "0.1.0"
