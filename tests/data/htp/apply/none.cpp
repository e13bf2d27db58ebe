// No rules: applying this file leaves a graph as it is.
