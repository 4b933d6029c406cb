@_exported import ModelObjects
